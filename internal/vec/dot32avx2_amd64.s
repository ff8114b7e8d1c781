//go:build amd64 && !purego

#include "textflag.h"

// TAIL32 sets YLO and YHI to the VMASKMOVPS masks of the first R (1 to
// 15) of sixteen float32 lanes; it uses AX and CX.
#define TAIL32(R, YLO, YHI) \
	LEAQ    tail32Mask<>(SB), AX \
	MOVQ    $16, CX \
	SUBQ    R, CX \
	VMOVDQU (AX)(CX*4), YLO \
	VMOVDQU 32(AX)(CX*4), YHI

// DOT4PART adds the products of the sixteen elements at OFF of x (in
// XLO, XHI) and of the four ys to the partial sums Y0-Y7 (two registers
// a y): the product x*y, then the sum acc+product, both rounded, as in
// dot32PartialsAVX2.
#define DOT4PART(YLOAD, OFF) \
	YLOAD(OFF, R8, Y10, Y11) \
	VMULPS  Y10, Y8, Y10 \
	VMULPS  Y11, Y9, Y11 \
	VADDPS  Y10, Y0, Y0 \
	VADDPS  Y11, Y1, Y1 \
	YLOAD(OFF, R9, Y12, Y13) \
	VMULPS  Y12, Y8, Y12 \
	VMULPS  Y13, Y9, Y13 \
	VADDPS  Y12, Y2, Y2 \
	VADDPS  Y13, Y3, Y3 \
	YLOAD(OFF, R10, Y10, Y11) \
	VMULPS  Y10, Y8, Y10 \
	VMULPS  Y11, Y9, Y11 \
	VADDPS  Y10, Y4, Y4 \
	VADDPS  Y11, Y5, Y5 \
	YLOAD(OFF, R11, Y12, Y13) \
	VMULPS  Y12, Y8, Y12 \
	VMULPS  Y13, Y9, Y13 \
	VADDPS  Y12, Y6, Y6 \
	VADDPS  Y13, Y7, Y7

// LOADU loads the sixteen elements at OFF of the vector at P into LO and
// HI; LOADM the first of them under the masks Y14 and Y15 (the others
// +0).
#define LOADU(OFF, P, LO, HI) \
	VMOVUPS (P)(OFF*1), LO \
	VMOVUPS 32(P)(OFF*1), HI

#define LOADM(OFF, P, LO, HI) \
	VMASKMOVPS (P)(OFF*1), Y14, LO \
	VMASKMOVPS 32(P)(OFF*1), Y15, HI

// REDUCE16 adds the sixteen partial sums of LO (0-7) and HI (8-15) as
// Dot32 documents, s[k] += s[k+8], s[k] += s[k+4], s[k] += s[k+2], then
// s[0] + s[1], and stores the result at OFF(DI); it uses X14.
#define REDUCE16(LO, HI, XLO, OFF) \
	VADDPS       HI, LO, LO \
	VEXTRACTF128 $1, LO, X14 \
	VADDPS       X14, XLO, XLO \
	VMOVHLPS     XLO, XLO, X14 \
	VADDPS       X14, XLO, XLO \
	VMOVSHDUP    XLO, X14 \
	VADDSS       X14, XLO, XLO \
	VMOVSS       XLO, OFF(DI)

// func dot4x32AVX2(dst, x []float32, ys [][]float32)
// dst[t] = dot32(x, ys[t]) for t = 0..3; every ys[t] is at least as long
// as x. The lanes past the end add +0, which leaves a partial sum as it
// is (a partial sum, begun at +0, is never -0).
TEXT ·dot4x32AVX2(SB), NOSPLIT, $0-72
	MOVQ   dst_base+0(FP), DI
	MOVQ   x_base+24(FP), SI
	MOVQ   x_len+32(FP), DX
	MOVQ   ys_base+48(FP), BX
	MOVQ   0(BX), R8
	MOVQ   24(BX), R9
	MOVQ   48(BX), R10
	MOVQ   72(BX), R11
	SHLQ   $2, DX
	XORQ   BX, BX
	MOVQ   DX, R12
	ANDQ   $-64, R12
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

loop:
	CMPQ    BX, R12
	JGE     tail
	VMOVUPS (SI)(BX*1), Y8
	VMOVUPS 32(SI)(BX*1), Y9
	DOT4PART(LOADU, BX)
	ADDQ    $64, BX
	JMP     loop

tail:
	SUBQ BX, DX
	JZ   reduce
	SHRQ $2, DX
	TAIL32(DX, Y14, Y15)
	LOADM(BX, SI, Y8, Y9)
	DOT4PART(LOADM, BX)

reduce:
	REDUCE16(Y0, Y1, X0, 0)
	REDUCE16(Y2, Y3, X2, 4)
	REDUCE16(Y4, Y5, X4, 8)
	REDUCE16(Y6, Y7, X6, 12)
	VZEROUPPER
	RET

// tail32Mask<>+4*(16-r) holds the VMASKMOVPS masks of the first r of
// sixteen lanes (two Y registers), r = 1 .. 15.
DATA tail32Mask<>+0(SB)/8, $0xffffffffffffffff
DATA tail32Mask<>+8(SB)/8, $0xffffffffffffffff
DATA tail32Mask<>+16(SB)/8, $0xffffffffffffffff
DATA tail32Mask<>+24(SB)/8, $0xffffffffffffffff
DATA tail32Mask<>+32(SB)/8, $0xffffffffffffffff
DATA tail32Mask<>+40(SB)/8, $0xffffffffffffffff
DATA tail32Mask<>+48(SB)/8, $0xffffffffffffffff
DATA tail32Mask<>+56(SB)/8, $0xffffffffffffffff
DATA tail32Mask<>+64(SB)/8, $0
DATA tail32Mask<>+72(SB)/8, $0
DATA tail32Mask<>+80(SB)/8, $0
DATA tail32Mask<>+88(SB)/8, $0
DATA tail32Mask<>+96(SB)/8, $0
DATA tail32Mask<>+104(SB)/8, $0
DATA tail32Mask<>+112(SB)/8, $0
DATA tail32Mask<>+120(SB)/8, $0
GLOBL tail32Mask<>(SB), RODATA|NOPTR, $128
