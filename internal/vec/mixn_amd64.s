//go:build amd64 && !purego

#include "textflag.h"
#include "strip_amd64.h"
#include "scaled_amd64.h"

#define VECS R9  // &xs[0]
#define K R10    // len(xs)
#define ROWS R8  // &w[0]
#define TMP DI   // &tmp[0]
#define END CX   // n in bytes
#define OFF AX   // byte offset of the block in every xs[j]
#define PV R11   // walks xs
#define PA R12   // walks w[i]
#define T R13    // vectors left
#define X SI     // &xs[j][0]
#define I DX     // rows left
#define PW R14   // walks w
#define PT BX    // byte offset of the row in tmp

// func mixInPlaceAVX512(xs, w [][]float64, tmp []float64, n int)
//
// For every block of 64 elements (OFF): each row i of the mixing summed
// in Z0-Z7 from +0, term after term as addScaledNAVX512 sums them, and
// stored to tmp[i*64:]; then the rows copied over the block of xs[i].
TEXT ·mixInPlaceAVX512(SB), NOSPLIT, $0-80
	MOVQ xs_base+0(FP), VECS
	MOVQ xs_len+8(FP), K
	MOVQ w_base+24(FP), ROWS
	MOVQ tmp_base+48(FP), TMP
	MOVQ n+72(FP), END
	SHLQ $3, END
	XORQ OFF, OFF

block:
	CMPQ OFF, END
	JGE  done
	MOVQ ROWS, PW
	XORQ PT, PT
	MOVQ K, I

row:
	ZERO8
	MOVQ   VECS, PV
	MOVQ   (PW), PA
	MOVQ   K, T

term:
	MOVQ         (PV), X
	ADDSCALED64(PA, X, OFF)
	ADDQ         $24, PV
	ADDQ         $8, PA
	DECQ         T
	JNZ          term

	STORE64(TMP, PT)
	ADDQ    $512, PT
	ADDQ    $24, PW
	DECQ    I
	JNZ     row

	// Every row of the block is summed: copy them over the block.
	MOVQ VECS, PV
	XORQ PT, PT
	MOVQ K, I

back:
	MOVQ    (PV), X
	LOAD64(TMP, PT)
	STORE64(X, OFF)
	ADDQ    $512, PT
	ADDQ    $24, PV
	DECQ    I
	JNZ     back

	ADDQ $512, OFF
	JMP  block

done:
	VZEROUPPER
	RET

// ADDSCALED32Y adds the coefficient at (A) times the 32 float64s at
// X+OFF to the sums Y0-Y7 as ADDSCALED64 does on Z registers; it uses
// Y8-Y12.
#define ADDSCALED32Y(A, X, OFF) \
	VBROADCASTSD (A), Y8 \
	VMULPD       (X)(OFF*1), Y8, Y9 \
	VMULPD       32(X)(OFF*1), Y8, Y10 \
	VMULPD       64(X)(OFF*1), Y8, Y11 \
	VMULPD       96(X)(OFF*1), Y8, Y12 \
	VADDPD       Y9, Y0, Y0 \
	VADDPD       Y10, Y1, Y1 \
	VADDPD       Y11, Y2, Y2 \
	VADDPD       Y12, Y3, Y3 \
	VMULPD       128(X)(OFF*1), Y8, Y9 \
	VMULPD       160(X)(OFF*1), Y8, Y10 \
	VMULPD       192(X)(OFF*1), Y8, Y11 \
	VMULPD       224(X)(OFF*1), Y8, Y12 \
	VADDPD       Y9, Y4, Y4 \
	VADDPD       Y10, Y5, Y5 \
	VADDPD       Y11, Y6, Y6 \
	VADDPD       Y12, Y7, Y7

// LOAD32Y loads the 32 float64s at B+O into Y0-Y7.
#define LOAD32Y(B, O) \
	VMOVUPD (B)(O*1), Y0 \
	VMOVUPD 32(B)(O*1), Y1 \
	VMOVUPD 64(B)(O*1), Y2 \
	VMOVUPD 96(B)(O*1), Y3 \
	VMOVUPD 128(B)(O*1), Y4 \
	VMOVUPD 160(B)(O*1), Y5 \
	VMOVUPD 192(B)(O*1), Y6 \
	VMOVUPD 224(B)(O*1), Y7

// STORE32Y stores Y0-Y7 to the 32 float64s at B+O.
#define STORE32Y(B, O) \
	VMOVUPD Y0, (B)(O*1) \
	VMOVUPD Y1, 32(B)(O*1) \
	VMOVUPD Y2, 64(B)(O*1) \
	VMOVUPD Y3, 96(B)(O*1) \
	VMOVUPD Y4, 128(B)(O*1) \
	VMOVUPD Y5, 160(B)(O*1) \
	VMOVUPD Y6, 192(B)(O*1) \
	VMOVUPD Y7, 224(B)(O*1)

// func mixInPlaceAVX2(xs, w [][]float64, tmp []float64, n int)
//
// mixInPlaceAVX512 at AVX2, blocks of 32 elements: each row i of the
// mixing summed in Y0-Y7 from +0, term after term, and stored to
// tmp[i*32:]; then the rows copied over the block of xs[i].
TEXT ·mixInPlaceAVX2(SB), NOSPLIT, $0-80
	MOVQ xs_base+0(FP), VECS
	MOVQ xs_len+8(FP), K
	MOVQ w_base+24(FP), ROWS
	MOVQ tmp_base+48(FP), TMP
	MOVQ n+72(FP), END
	SHLQ $3, END
	XORQ OFF, OFF

block2:
	CMPQ OFF, END
	JGE  done2
	MOVQ ROWS, PW
	XORQ PT, PT
	MOVQ K, I

row2:
	ZERO8Y
	MOVQ   VECS, PV
	MOVQ   (PW), PA
	MOVQ   K, T

term2:
	MOVQ (PV), X
	ADDSCALED32Y(PA, X, OFF)
	ADDQ $24, PV
	ADDQ $8, PA
	DECQ T
	JNZ  term2

	STORE32Y(TMP, PT)
	ADDQ $256, PT
	ADDQ $24, PW
	DECQ I
	JNZ  row2

	// Every row of the block is summed: copy them over the block.
	MOVQ VECS, PV
	XORQ PT, PT
	MOVQ K, I

back2:
	MOVQ (PV), X
	LOAD32Y(TMP, PT)
	STORE32Y(X, OFF)
	ADDQ $256, PT
	ADDQ $24, PV
	DECQ I
	JNZ  back2

	ADDQ $256, OFF
	JMP  block2

done2:
	VZEROUPPER
	RET
