//go:build amd64 && !purego

#include "textflag.h"
#include "strip_amd64.h"
#include "scaled_amd64.h"

// Registers of both kernels.
#define DST DI  // &dst[0]
#define END CX  // len(dst) in bytes
#define COEF R8 // &a[0]
#define VECS R9 // &xs[0]
#define K R10   // len(xs)
#define ZERO R14
#define OFF AX  // byte offset of the block in dst and in every xs[t]
#define LEFT DX // bytes of dst left from OFF
#define PV R11  // walks xs
#define PA R12  // walks a
#define T R13   // vectors left
#define X SI    // &xs[t][0]

// func addScaledNAVX512(dst, a []float64, xs [][]float64, zero bool)
TEXT ·addScaledNAVX512(SB), NOSPLIT, $0-73
	MOVQ    dst_base+0(FP), DST
	MOVQ    dst_len+8(FP), END
	MOVQ    a_base+24(FP), COEF
	MOVQ    xs_base+48(FP), VECS
	MOVQ    xs_len+56(FP), K
	MOVBQZX zero+72(FP), ZERO
	SHLQ    $3, END
	XORQ    OFF, OFF

block64: // 64 elements in Z0-Z7
	MOVQ END, LEFT
	SUBQ OFF, LEFT
	CMPQ LEFT, $512
	JL   block8
	TESTQ ZERO, ZERO
	JZ    load64
	ZERO8
	JMP    sum64

load64:
	LOAD64(DST, OFF)

sum64:
	MOVQ VECS, PV
	MOVQ COEF, PA
	MOVQ K, T

loop64:
	MOVQ         (PV), X
	ADDSCALED64(PA, X, OFF)
	ADDQ         $24, PV
	ADDQ         $8, PA
	DECQ         T
	JNZ          loop64

	STORE64(DST, OFF)
	ADDQ    $512, OFF
	JMP     block64

block8: // 8 elements in Z0
	CMPQ LEFT, $64
	JL   tail
	VPXORQ Z0, Z0, Z0
	TESTQ  ZERO, ZERO
	JNZ    sum8
	VMOVUPD (DST)(OFF*1), Z0

sum8:
	MOVQ VECS, PV
	MOVQ COEF, PA
	MOVQ K, T

loop8:
	MOVQ         (PV), X
	VBROADCASTSD (PA), Z8
	VMULPD       (X)(OFF*1), Z8, Z9
	VADDPD       Z9, Z0, Z0
	ADDQ         $24, PV
	ADDQ         $8, PA
	DECQ         T
	JNZ          loop8

	VMOVUPD Z0, (DST)(OFF*1)
	ADDQ    $64, OFF
	SUBQ    $64, LEFT
	JMP     block8

tail: // 1 to 7 elements under the mask K1
	TESTQ LEFT, LEFT
	JZ    done
	MOVQ  LEFT, CX
	SHRQ  $3, CX
	MOVQ  $1, BX
	SHLQ  CX, BX
	DECQ  BX
	KMOVW BX, K1
	VPXORQ Z0, Z0, Z0
	TESTQ  ZERO, ZERO
	JNZ    sumtail
	VMOVUPD.Z (DST)(OFF*1), K1, Z0

sumtail:
	MOVQ VECS, PV
	MOVQ COEF, PA
	MOVQ K, T

looptail:
	MOVQ         (PV), X
	VBROADCASTSD (PA), Z8
	VMOVUPD.Z    (X)(OFF*1), K1, Z9
	VMULPD       Z9, Z8, Z9
	VADDPD       Z9, Z0, Z0
	ADDQ         $24, PV
	ADDQ         $8, PA
	DECQ         T
	JNZ          looptail

	VMOVUPD Z0, K1, (DST)(OFF*1)

done:
	VZEROUPPER
	RET

// tailMask<>+8*(3-r) holds the VMASKMOVPD mask of the first r of four
// lanes, r = 1, 2, 3.
DATA tailMask<>+0(SB)/8, $0xffffffffffffffff
DATA tailMask<>+8(SB)/8, $0xffffffffffffffff
DATA tailMask<>+16(SB)/8, $0xffffffffffffffff
DATA tailMask<>+24(SB)/8, $0
DATA tailMask<>+32(SB)/8, $0
DATA tailMask<>+40(SB)/8, $0
GLOBL tailMask<>(SB), RODATA|NOPTR, $48

// func addScaledNAVX2(dst, a []float64, xs [][]float64, zero bool)
TEXT ·addScaledNAVX2(SB), NOSPLIT, $0-73
	MOVQ    dst_base+0(FP), DST
	MOVQ    dst_len+8(FP), END
	MOVQ    a_base+24(FP), COEF
	MOVQ    xs_base+48(FP), VECS
	MOVQ    xs_len+56(FP), K
	MOVBQZX zero+72(FP), ZERO
	SHLQ    $3, END
	XORQ    OFF, OFF

block32: // 32 elements in Y0-Y7
	MOVQ END, LEFT
	SUBQ OFF, LEFT
	CMPQ LEFT, $256
	JL   block4
	TESTQ ZERO, ZERO
	JZ    load32
	ZERO8Y
	JMP    sum32

load32:
	VMOVUPD (DST)(OFF*1), Y0
	VMOVUPD 32(DST)(OFF*1), Y1
	VMOVUPD 64(DST)(OFF*1), Y2
	VMOVUPD 96(DST)(OFF*1), Y3
	VMOVUPD 128(DST)(OFF*1), Y4
	VMOVUPD 160(DST)(OFF*1), Y5
	VMOVUPD 192(DST)(OFF*1), Y6
	VMOVUPD 224(DST)(OFF*1), Y7

sum32:
	MOVQ VECS, PV
	MOVQ COEF, PA
	MOVQ K, T

loop32:
	MOVQ         (PV), X
	VBROADCASTSD (PA), Y8
	VMULPD       (X)(OFF*1), Y8, Y9
	VMULPD       32(X)(OFF*1), Y8, Y10
	VMULPD       64(X)(OFF*1), Y8, Y11
	VMULPD       96(X)(OFF*1), Y8, Y12
	VADDPD       Y9, Y0, Y0
	VADDPD       Y10, Y1, Y1
	VADDPD       Y11, Y2, Y2
	VADDPD       Y12, Y3, Y3
	VMULPD       128(X)(OFF*1), Y8, Y9
	VMULPD       160(X)(OFF*1), Y8, Y10
	VMULPD       192(X)(OFF*1), Y8, Y11
	VMULPD       224(X)(OFF*1), Y8, Y12
	VADDPD       Y9, Y4, Y4
	VADDPD       Y10, Y5, Y5
	VADDPD       Y11, Y6, Y6
	VADDPD       Y12, Y7, Y7
	ADDQ         $24, PV
	ADDQ         $8, PA
	DECQ         T
	JNZ          loop32

	VMOVUPD Y0, (DST)(OFF*1)
	VMOVUPD Y1, 32(DST)(OFF*1)
	VMOVUPD Y2, 64(DST)(OFF*1)
	VMOVUPD Y3, 96(DST)(OFF*1)
	VMOVUPD Y4, 128(DST)(OFF*1)
	VMOVUPD Y5, 160(DST)(OFF*1)
	VMOVUPD Y6, 192(DST)(OFF*1)
	VMOVUPD Y7, 224(DST)(OFF*1)
	ADDQ    $256, OFF
	JMP     block32

block4: // 4 elements in Y0
	CMPQ LEFT, $32
	JL   tail2
	VXORPD Y0, Y0, Y0
	TESTQ  ZERO, ZERO
	JNZ    sum4
	VMOVUPD (DST)(OFF*1), Y0

sum4:
	MOVQ VECS, PV
	MOVQ COEF, PA
	MOVQ K, T

loop4:
	MOVQ         (PV), X
	VBROADCASTSD (PA), Y8
	VMULPD       (X)(OFF*1), Y8, Y9
	VADDPD       Y9, Y0, Y0
	ADDQ         $24, PV
	ADDQ         $8, PA
	DECQ         T
	JNZ          loop4

	VMOVUPD Y0, (DST)(OFF*1)
	ADDQ    $32, OFF
	SUBQ    $32, LEFT
	JMP     block4

tail2: // 1 to 3 elements under the mask Y15
	TESTQ   LEFT, LEFT
	JZ      done2
	LEAQ    tailMask<>(SB), BX
	NEGQ    LEFT
	VMOVDQU 24(BX)(LEFT*1), Y15
	VXORPD  Y0, Y0, Y0
	TESTQ   ZERO, ZERO
	JNZ     sumtail2
	VMASKMOVPD (DST)(OFF*1), Y15, Y0

sumtail2:
	MOVQ VECS, PV
	MOVQ COEF, PA
	MOVQ K, T

looptail2:
	MOVQ         (PV), X
	VBROADCASTSD (PA), Y8
	VMASKMOVPD   (X)(OFF*1), Y15, Y9
	VMULPD       Y9, Y8, Y9
	VADDPD       Y9, Y0, Y0
	ADDQ         $24, PV
	ADDQ         $8, PA
	DECQ         T
	JNZ          looptail2

	VMASKMOVPD Y0, Y15, (DST)(OFF*1)

done2:
	VZEROUPPER
	RET
