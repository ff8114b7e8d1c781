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
