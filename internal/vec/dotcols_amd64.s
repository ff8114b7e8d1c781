//go:build amd64 && !purego

#include "textflag.h"
#include "strip_amd64.h"

// The kernels of DotMNStride, SeqDotMNStride and DotMNStride32. Row t of
// a strip (ys transposed, at yt + t*k) holds element t of 16 (or 8) ys,
// one to a lane, so lane j of an accumulator sums the products of Dot(x,
// y_j). In float64, partial l (l = 0..3) sums the products of elements t
// = l mod 4 while four remain, the last one to three go to partial 0 one
// at a time, and the result is (s0 + s2) + (s1 + s3); every operation has
// Dot's operand order (the product x*y, the sum acc+product), so that
// every lane is Dot's to the bit, NaN payloads included.

// TERM2x16 adds element t of x0 and x1 (at XOFF(SI)(AX*8) and
// XOFF(R8)(AX*8)) times the strip row at YLO, YHI (16 float64) to the
// accumulators A0, A1 (x0's) and B0, B1 (x1's).
#define TERM2x16(YLO, YHI, XOFF, A0, A1, B0, B1) \
	VMOVUPD      YLO, Z16              \
	VMOVUPD      YHI, Z17              \
	VBROADCASTSD XOFF(SI)(AX*8), Z18   \
	VBROADCASTSD XOFF(R8)(AX*8), Z19   \
	VMULPD       Z16, Z18, Z20         \
	VMULPD       Z17, Z18, Z21         \
	VMULPD       Z16, Z19, Z22         \
	VMULPD       Z17, Z19, Z23         \
	VADDPD       Z20, A0, A0           \
	VADDPD       Z21, A1, A1           \
	VADDPD       Z22, B0, B0           \
	VADDPD       Z23, B1, B1

// ARGS2x16 loads the arguments of the 2 x 16 kernels: DI = d0, DX = d1,
// SI = x0, R8 = x1, R9 = yt, CX = m, R11 = k*8, R12 = 3*k*8.
#define ARGS2x16 \
	MOVQ d0+0(FP), DI          \
	MOVQ d1+8(FP), DX          \
	MOVQ x0+16(FP), SI         \
	MOVQ x1+24(FP), R8         \
	MOVQ yt+32(FP), R9         \
	MOVQ m+56(FP), CX          \
	MOVQ k+64(FP), R11         \
	SHLQ $3, R11               \
	LEAQ (R11)(R11*2), R12

// STORE2x16 stores Z0, Z1 at d0 and Z8, Z9 at d1, each lane zeroed where
// p0 (p1) is zero unless p0 is nil.
#define STORE2x16(DONE) \
	MOVQ      p0+40(FP), R13   \
	TESTQ     R13, R13         \
	JZ        DONE             \
	MOVQ      p1+48(FP), R14   \
	VPXORQ    Z31, Z31, Z31    \
	VCMPPD    $4, (R13), Z31, K1   \
	VCMPPD    $4, 64(R13), Z31, K2 \
	VCMPPD    $4, (R14), Z31, K3   \
	VCMPPD    $4, 64(R14), Z31, K4 \
	VMOVUPD.Z Z0, K1, Z0       \
	VMOVUPD.Z Z1, K2, Z1       \
	VMOVUPD.Z Z8, K3, Z8       \
	VMOVUPD.Z Z9, K4, Z9       \
DONE:                          \
	VMOVUPD   Z0, (DI)         \
	VMOVUPD   Z1, 64(DI)       \
	VMOVUPD   Z8, (DX)         \
	VMOVUPD   Z9, 64(DX)       \
	VZEROUPPER                 \
	RET

// REDUCE4 sets S0 = (S0 + S2) + (S1 + S3), Dot's reduction lane by lane.
#define REDUCE4(S0, S1, S2, S3) \
	VADDPD S2, S0, S0 \
	VADDPD S3, S1, S1 \
	VADDPD S1, S0, S0

// func dotCols2x16AVX512(d0, d1, x0, x1, yt, p0, p1 *float64, m, k int)
//
// d0[j] = Dot(x0, y_j) and d1[j] = Dot(x1, y_j) for j < 16; row t of yt
// is at yt + t*k. Unless p0 is nil, d0[j] = +0 where p0[j] == 0 and d1[j]
// = +0 where p1[j] == 0. Partial l of x0 is in Z(2l) (lanes 0-7) and
// Z(2l+1) (lanes 8-15), of x1 in Z(8+2l) and Z(9+2l).
TEXT ·dotCols2x16AVX512(SB), NOSPLIT, $0-72
	ARGS2x16
	MOVQ   CX, BX
	ANDQ   $-4, BX
	ZERO16
	XORQ   AX, AX
	CMPQ   AX, BX
	JGE    tail

loop:
	TERM2x16((R9), 64(R9), 0, Z0, Z1, Z8, Z9)
	TERM2x16((R9)(R11*1), 64(R9)(R11*1), 8, Z2, Z3, Z10, Z11)
	TERM2x16((R9)(R11*2), 64(R9)(R11*2), 16, Z4, Z5, Z12, Z13)
	TERM2x16((R9)(R12*1), 64(R9)(R12*1), 24, Z6, Z7, Z14, Z15)
	LEAQ (R9)(R11*4), R9
	ADDQ $4, AX
	CMPQ AX, BX
	JL   loop

tail:
	CMPQ AX, CX
	JGE  reduce

loop1:
	TERM2x16((R9), 64(R9), 0, Z0, Z1, Z8, Z9)
	ADDQ R11, R9
	INCQ AX
	CMPQ AX, CX
	JL   loop1

reduce:
	REDUCE4(Z0, Z2, Z4, Z6)
	REDUCE4(Z1, Z3, Z5, Z7)
	REDUCE4(Z8, Z10, Z12, Z14)
	REDUCE4(Z9, Z11, Z13, Z15)
	STORE2x16(store)

// func dotColsSeq2x16AVX512(d0, d1, x0, x1, yt, p0, p1 *float64, m, k int)
//
// dotCols2x16AVX512 with each lane summed in sequence from +0: d0[j] =
// (((+0 + x0[0]*y_j[0]) + x0[1]*y_j[1]) + ...), the order of a plain loop.
TEXT ·dotColsSeq2x16AVX512(SB), NOSPLIT, $0-72
	ARGS2x16
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z8, Z8, Z8
	VPXORQ Z9, Z9, Z9
	XORQ   AX, AX

loopseq:
	TERM2x16((R9), 64(R9), 0, Z0, Z1, Z8, Z9)
	ADDQ R11, R9
	INCQ AX
	CMPQ AX, CX
	JL   loopseq
	STORE2x16(storeseq)

// TERM1x8 adds element t of x0 (at XOFF(SI)(AX*8)) times the strip row at
// YLO, YHI (8 float64) to A0, A1, in 256-bit registers.
#define TERM1x8(YLO, YHI, XOFF, A0, A1) \
	VMOVUPD      YLO, Y8             \
	VMOVUPD      YHI, Y9             \
	VBROADCASTSD XOFF(SI)(AX*8), Y10 \
	VMULPD       Y8, Y10, Y11        \
	VMULPD       Y9, Y10, Y12        \
	VADDPD       Y11, A0, A0         \
	VADDPD       Y12, A1, A1

// func dotCols1x8AVX2(d0, x0, yt, p0 *float64, m, k int)
//
// d0[j] = Dot(x0, y_j) for j < 8, or +0 where p0[j] == 0 unless p0 is
// nil. Partial l is in Y(2l) (lanes 0-3) and Y(2l+1) (lanes 4-7).
TEXT ·dotCols1x8AVX2(SB), NOSPLIT, $0-48
	MOVQ   d0+0(FP), DI
	MOVQ   x0+8(FP), SI
	MOVQ   yt+16(FP), R9
	MOVQ   m+32(FP), CX
	MOVQ   k+40(FP), R11
	SHLQ   $3, R11
	LEAQ   (R11)(R11*2), R12
	MOVQ   CX, BX
	ANDQ   $-4, BX
	ZERO8Y
	XORQ   AX, AX
	CMPQ   AX, BX
	JGE    tail2

loop2:
	TERM1x8((R9), 32(R9), 0, Y0, Y1)
	TERM1x8((R9)(R11*1), 32(R9)(R11*1), 8, Y2, Y3)
	TERM1x8((R9)(R11*2), 32(R9)(R11*2), 16, Y4, Y5)
	TERM1x8((R9)(R12*1), 32(R9)(R12*1), 24, Y6, Y7)
	LEAQ (R9)(R11*4), R9
	ADDQ $4, AX
	CMPQ AX, BX
	JL   loop2

tail2:
	CMPQ AX, CX
	JGE  reduce2

loop3:
	TERM1x8((R9), 32(R9), 0, Y0, Y1)
	ADDQ R11, R9
	INCQ AX
	CMPQ AX, CX
	JL   loop3

reduce2:
	REDUCE4(Y0, Y2, Y4, Y6)
	REDUCE4(Y1, Y3, Y5, Y7)
	MOVQ   p0+24(FP), R13
	TESTQ  R13, R13
	JZ     store2
	VXORPD Y15, Y15, Y15
	VCMPPD $4, (R13), Y15, Y13
	VCMPPD $4, 32(R13), Y15, Y14
	VANDPD Y13, Y0, Y0
	VANDPD Y14, Y1, Y1

store2:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VZEROUPPER
	RET

// TERM16F32 adds element t+l of x0 (at XOFF = 4l past element t) times
// strip row t+l (at YOFF = 64l) to partial sum l, in A.
#define TERM16F32(YOFF, XOFF, A) \
	VMOVUPS      YOFF(R9), Z16         \
	VBROADCASTSS XOFF(SI)(AX*1), Z17   \
	VMULPS       Z16, Z17, Z18         \
	VADDPS       Z18, A, A

// func dotCols1x16F32AVX512(d0, x0, yt, p0 *float32, m int)
//
// d0[j] = Dot32(x0, y_j) for the 16 columns y_j of the m x 16 matrix at
// yt (m a multiple of 16, >= 16), in the order of dot32AVX512: partial
// sum l (in Zl) takes the elements t = l mod 16, and the partial sums
// are added in halves (s[k] += s[k+8], += s[k+4], += s[k+2], s[0] +
// s[1]). A shorter x is padded with zeros by the caller, whose products
// +0 are what dot32AVX512's masked tail adds. Unless p0 is nil, d0[j] =
// +0 where p0[j] == 0.
TEXT ·dotCols1x16F32AVX512(SB), NOSPLIT, $0-40
	MOVQ   d0+0(FP), DI
	MOVQ   x0+8(FP), SI
	MOVQ   yt+16(FP), R9
	MOVQ   m+32(FP), CX
	SHLQ   $2, CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	XORQ   AX, AX

loop32:
	TERM16F32(0, 0, Z0)
	TERM16F32(64, 4, Z1)
	TERM16F32(128, 8, Z2)
	TERM16F32(192, 12, Z3)
	TERM16F32(256, 16, Z4)
	TERM16F32(320, 20, Z5)
	TERM16F32(384, 24, Z6)
	TERM16F32(448, 28, Z7)
	TERM16F32(512, 32, Z8)
	TERM16F32(576, 36, Z9)
	TERM16F32(640, 40, Z10)
	TERM16F32(704, 44, Z11)
	TERM16F32(768, 48, Z12)
	TERM16F32(832, 52, Z13)
	TERM16F32(896, 56, Z14)
	TERM16F32(960, 60, Z15)
	ADDQ $1024, R9
	ADDQ $64, AX
	CMPQ AX, CX
	JL   loop32

	VADDPS Z8, Z0, Z0
	VADDPS Z9, Z1, Z1
	VADDPS Z10, Z2, Z2
	VADDPS Z11, Z3, Z3
	VADDPS Z12, Z4, Z4
	VADDPS Z13, Z5, Z5
	VADDPS Z14, Z6, Z6
	VADDPS Z15, Z7, Z7
	VADDPS Z4, Z0, Z0
	VADDPS Z5, Z1, Z1
	VADDPS Z6, Z2, Z2
	VADDPS Z7, Z3, Z3
	VADDPS Z2, Z0, Z0
	VADDPS Z3, Z1, Z1
	VADDPS Z1, Z0, Z0
	MOVQ   p0+24(FP), R13
	TESTQ  R13, R13
	JZ     store32
	VPXORD Z31, Z31, Z31
	VCMPPS $4, (R13), Z31, K1
	VMOVUPS.Z Z0, K1, Z0

store32:
	VMOVUPS Z0, (DI)
	VZEROUPPER
	RET
