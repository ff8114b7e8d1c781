//go:build amd64 && !purego

#include "textflag.h"

// The kernels of TransSums. Lane j of accumulator c holds dt[c*k+j]; for
// every row i it takes x_ij * p_ic (the coefficient first, as RowSums'
// terms) under the mask of the lanes whose x_ij is not zero (a NaN is not
// zero), so that a lane whose x_ij is zero is left as it was, as RowSums
// leaves out a zero term.

// TRANSARGS loads the arguments: DI = dt, R8 = k*8, SI = x, R9 =
// xStride*8, DX = p, R10 = pStride*8, CX = n, K1 = lanes, R11 = dt's third
// row, Z31 = 0.
#define TRANSARGS \
	MOVQ   dt+0(FP), DI        \
	MOVQ   k+8(FP), R8         \
	SHLQ   $3, R8              \
	MOVQ   x+16(FP), SI        \
	MOVQ   xStride+24(FP), R9  \
	SHLQ   $3, R9              \
	MOVQ   p+32(FP), DX        \
	MOVQ   pStride+40(FP), R10 \
	SHLQ   $3, R10             \
	MOVQ   n+48(FP), CX        \
	MOVQ   lanes+56(FP), AX    \
	KMOVQ  AX, K1              \
	LEAQ   (DI)(R8*2), R11     \
	VPXORQ Z31, Z31, Z31

// ROWMASK loads row i of x (eight lanes under K1) into Z8 and sets K2 to
// its lanes that are not zero.
#define ROWMASK \
	VMOVUPD.Z (SI), K1, Z8 \
	VCMPPD    $4, Z31, Z8, K1, K2

// TRANSTERM adds x_ij * p_ic (p_ic at POFF(DX)) to A under K2.
#define TRANSTERM(POFF, A) \
	VBROADCASTSD POFF(DX), Z9 \
	VMULPD       Z9, Z8, Z10  \
	VADDPD       Z10, A, K2, A

// NEXTROW moves to the next row of x and p and loops to L while rows remain.
#define NEXTROW(L) \
	ADDQ R9, SI  \
	ADDQ R10, DX \
	DECQ CX      \
	JNZ  L

// func transSums4AVX512(dt *float64, k int, x *float64, xStride int, p *float64, pStride int, n int, lanes uint64)
//
// The 4 rows of dt from dt (k elements apart), lanes under lanes, take
// the n rows of x (xStride apart) and of p (4 columns, pStride apart).
TEXT ·transSums4AVX512(SB), NOSPLIT, $0-64
	TRANSARGS
	VMOVUPD.Z (DI), K1, Z0
	VMOVUPD.Z (DI)(R8*1), K1, Z1
	VMOVUPD.Z (R11), K1, Z2
	VMOVUPD.Z (R11)(R8*1), K1, Z3
	TESTQ     CX, CX
	JZ        store4

loop4:
	ROWMASK
	TRANSTERM(0, Z0)
	TRANSTERM(8, Z1)
	TRANSTERM(16, Z2)
	TRANSTERM(24, Z3)
	NEXTROW(loop4)

store4:
	VMOVUPD Z0, K1, (DI)
	VMOVUPD Z1, K1, (DI)(R8*1)
	VMOVUPD Z2, K1, (R11)
	VMOVUPD Z3, K1, (R11)(R8*1)
	VZEROUPPER
	RET

// func transSums1AVX512(dt *float64, k int, x *float64, xStride int, p *float64, pStride int, n int, lanes uint64)
//
// transSums4AVX512 for one row of dt and one column of p.
TEXT ·transSums1AVX512(SB), NOSPLIT, $0-64
	TRANSARGS
	VMOVUPD.Z (DI), K1, Z0
	TESTQ     CX, CX
	JZ        store1

loop1:
	ROWMASK
	TRANSTERM(0, Z0)
	NEXTROW(loop1)

store1:
	VMOVUPD Z0, K1, (DI)
	VZEROUPPER
	RET
