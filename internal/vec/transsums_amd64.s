//go:build amd64 && !purego

#include "textflag.h"

// The kernels of TransSums. Lane j of accumulator c holds dt[c*k+j]; for
// every row i it takes x_ij * p_ic (the coefficient first, as RowSums'
// terms) under the mask of the lanes whose x_ij is not zero (a NaN is not
// zero), so that a lane whose x_ij is zero is left as it was, as RowSums
// leaves out a zero term.

// func transSums4AVX512(dt *float64, k int, x *float64, xStride int, p *float64, pStride int, n int, lanes uint64)
//
// The 4 rows of dt from dt (k elements apart), lanes under lanes, take
// the n rows of x (xStride apart) and of p (4 columns, pStride apart).
TEXT ·transSums4AVX512(SB), NOSPLIT, $0-64
	MOVQ dt+0(FP), DI
	MOVQ k+8(FP), R8
	SHLQ $3, R8
	MOVQ x+16(FP), SI
	MOVQ xStride+24(FP), R9
	SHLQ $3, R9
	MOVQ p+32(FP), DX
	MOVQ pStride+40(FP), R10
	SHLQ $3, R10
	MOVQ n+48(FP), CX
	MOVQ lanes+56(FP), AX
	KMOVQ AX, K1
	LEAQ (DI)(R8*2), R11
	VMOVUPD.Z (DI), K1, Z0
	VMOVUPD.Z (DI)(R8*1), K1, Z1
	VMOVUPD.Z (R11), K1, Z2
	VMOVUPD.Z (R11)(R8*1), K1, Z3
	VPXORQ Z31, Z31, Z31
	TESTQ CX, CX
	JZ    store4

loop4:
	VMOVUPD.Z (SI), K1, Z8
	VCMPPD    $4, Z31, Z8, K1, K2
	VBROADCASTSD (DX), Z9
	VMULPD Z9, Z8, Z10
	VADDPD Z10, Z0, K2, Z0
	VBROADCASTSD 8(DX), Z9
	VMULPD Z9, Z8, Z10
	VADDPD Z10, Z1, K2, Z1
	VBROADCASTSD 16(DX), Z9
	VMULPD Z9, Z8, Z10
	VADDPD Z10, Z2, K2, Z2
	VBROADCASTSD 24(DX), Z9
	VMULPD Z9, Z8, Z10
	VADDPD Z10, Z3, K2, Z3
	ADDQ R9, SI
	ADDQ R10, DX
	DECQ CX
	JNZ  loop4

store4:
	VMOVUPD Z0, K1, (DI)
	VMOVUPD Z1, K1, (DI)(R8*1)
	VMOVUPD Z2, K1, (R11)
	VMOVUPD Z3, K1, (R11)(R8*1)
	VZEROUPPER
	RET

// func transSums1AVX512(dt *float64, k int, x *float64, xStride int, p *float64, pStride int, n int, lanes uint64)
//
// The 1 rows of dt from dt (k elements apart), lanes under lanes, take
// the n rows of x (xStride apart) and of p (1 columns, pStride apart).
TEXT ·transSums1AVX512(SB), NOSPLIT, $0-64
	MOVQ dt+0(FP), DI
	MOVQ k+8(FP), R8
	SHLQ $3, R8
	MOVQ x+16(FP), SI
	MOVQ xStride+24(FP), R9
	SHLQ $3, R9
	MOVQ p+32(FP), DX
	MOVQ pStride+40(FP), R10
	SHLQ $3, R10
	MOVQ n+48(FP), CX
	MOVQ lanes+56(FP), AX
	KMOVQ AX, K1
	LEAQ (DI)(R8*2), R11
	VMOVUPD.Z (DI), K1, Z0
	VPXORQ Z31, Z31, Z31
	TESTQ CX, CX
	JZ    store1

loop1:
	VMOVUPD.Z (SI), K1, Z8
	VCMPPD    $4, Z31, Z8, K1, K2
	VBROADCASTSD (DX), Z9
	VMULPD Z9, Z8, Z10
	VADDPD Z10, Z0, K2, Z0
	ADDQ R9, SI
	ADDQ R10, DX
	DECQ CX
	JNZ  loop1

store1:
	VMOVUPD Z0, K1, (DI)
	VZEROUPPER
	RET
