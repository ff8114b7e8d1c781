//go:build amd64 && !purego

#include "textflag.h"

// The float32 elementwise kernels on AVX-512: the float64 ones of
// elementwise_amd64.s and adam_amd64.s on 16 lanes a register, each
// operation rounded as in the Go versions (portable32.go).

// KTAIL32 sets K1 to the lanes of the LEFTB bytes (a multiple of 4, under
// 64) left.
#define KTAIL32(LEFTB, TMP) \
	MOVQ LEFTB, CX   \
	SHRQ $2, CX      \
	MOVQ $1, TMP     \
	SHLQ CX, TMP     \
	DECQ TMP         \
	KMOVW TMP, K1

// func mul32AVX512(dst, x, y []float32, add bool)
TEXT ·mul32AVX512(SB), NOSPLIT, $0-73
	MOVQ    dst_base+0(FP), DI
	MOVQ    dst_len+8(FP), DX
	MOVQ    x_base+24(FP), SI
	MOVQ    y_base+48(FP), R8
	MOVBQZX add+72(FP), R9
	SHLQ    $2, DX
	XORQ    AX, AX
	MOVQ    DX, R10
	ANDQ    $-64, R10
	TESTQ   R9, R9
	JNZ     addloop

setloop:
	CMPQ    AX, R10
	JGE     settail
	VMOVUPS (SI)(AX*1), Z0
	VMULPS  (R8)(AX*1), Z0, Z0
	VMOVUPS Z0, (DI)(AX*1)
	ADDQ    $64, AX
	JMP     setloop

settail:
	SUBQ      AX, DX
	JZ        done
	KTAIL32(DX, BX)
	VMOVUPS.Z (SI)(AX*1), K1, Z0
	VMOVUPS.Z (R8)(AX*1), K1, Z1
	VMULPS    Z1, Z0, Z0
	VMOVUPS   Z0, K1, (DI)(AX*1)
	JMP       done

addloop:
	CMPQ    AX, R10
	JGE     addtail
	VMOVUPS (SI)(AX*1), Z0
	VMULPS  (R8)(AX*1), Z0, Z0
	VADDPS  (DI)(AX*1), Z0, Z0
	VMOVUPS Z0, (DI)(AX*1)
	ADDQ    $64, AX
	JMP     addloop

addtail:
	SUBQ      AX, DX
	JZ        done
	KTAIL32(DX, BX)
	VMOVUPS.Z (SI)(AX*1), K1, Z0
	VMOVUPS.Z (R8)(AX*1), K1, Z1
	VMOVUPS.Z (DI)(AX*1), K1, Z2
	VMULPS    Z1, Z0, Z0
	VADDPS    Z0, Z2, Z2
	VMOVUPS   Z2, K1, (DI)(AX*1)

done:
	VZEROUPPER
	RET

// func mulPruned32AVX512(dst, x, m []float32, thr float32)
TEXT ·mulPruned32AVX512(SB), NOSPLIT, $0-76
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), DX
	MOVQ         x_base+24(FP), SI
	MOVQ         m_base+48(FP), R8
	VBROADCASTSS thr+72(FP), Z8
	MOVL         $0x7fffffff, BX
	VPBROADCASTD BX, Z9
	SHLQ         $2, DX
	XORQ         AX, AX
	MOVQ         DX, R10
	ANDQ         $-64, R10

loop:
	CMPQ      AX, R10
	JGE       tail
	VMOVUPS   (R8)(AX*1), Z1
	VPANDD    Z9, Z1, Z2
	VCMPPS    $0x15, Z8, Z2, K2 // keep where !(|m| < thr): NLT_UQ, true for NaN
	VMOVUPS.Z Z1, K2, Z1
	VMULPS    (SI)(AX*1), Z1, Z1
	VMOVUPS   Z1, (DI)(AX*1)
	ADDQ      $64, AX
	JMP       loop

tail:
	SUBQ      AX, DX
	JZ        done
	KTAIL32(DX, BX)
	VMOVUPS.Z (R8)(AX*1), K1, Z1
	VMOVUPS.Z (SI)(AX*1), K1, Z0
	VPANDD    Z9, Z1, Z2
	VCMPPS    $0x15, Z8, Z2, K2
	VMOVUPS.Z Z1, K2, Z1
	VMULPS    Z0, Z1, Z1
	VMOVUPS   Z1, K1, (DI)(AX*1)

done:
	VZEROUPPER
	RET

// ADAM32 updates the lanes of one register as adam32Go does; LOAD and
// STORE are the (masked) moves.
#define ADAM32(LOAD, STORE) \
	LOAD(DI, Z0)            \
	LOAD(SI, Z1)            \
	VMULPS Z0, Z24, Z2      \
	VADDPS Z2, Z1, Z1       \
	LOAD(R8, Z2)            \
	VMULPS Z2, Z20, Z2      \
	VMULPS Z1, Z21, Z3      \
	VADDPS Z3, Z2, Z2       \
	LOAD(R9, Z4)            \
	VMULPS Z4, Z22, Z4      \
	VMULPS Z1, Z23, Z5      \
	VMULPS Z1, Z5, Z5       \
	VADDPS Z5, Z4, Z4       \
	STORE(Z2, R8)           \
	STORE(Z4, R9)           \
	VSQRTPS Z4, Z6          \
	VMULPS Z26, Z6, Z6      \
	VADDPS Z27, Z6, Z6      \
	VMULPS Z2, Z25, Z7      \
	VDIVPS Z6, Z7, Z7       \
	VSUBPS Z7, Z0, Z0       \
	STORE(Z0, DI)

#define LOAD32U(P, R) VMOVUPS (P)(AX*1), R
#define STORE32U(R, P) VMOVUPS R, (P)(AX*1)
#define LOAD32K(P, R) VMOVUPS.Z (P)(AX*1), K1, R
#define STORE32K(R, P) VMOVUPS R, K1, (P)(AX*1)

// func adam32AVX512(theta, grad, m, v []float32, p *adamParams32)
TEXT ·adam32AVX512(SB), NOSPLIT, $0-104
	MOVQ         theta_base+0(FP), DI
	MOVQ         theta_len+8(FP), DX
	MOVQ         grad_base+24(FP), SI
	MOVQ         m_base+48(FP), R8
	MOVQ         v_base+72(FP), R9
	MOVQ         p+96(FP), R10
	VBROADCASTSS 0(R10), Z20  // b1
	VBROADCASTSS 4(R10), Z21  // 1-b1
	VBROADCASTSS 8(R10), Z22  // b2
	VBROADCASTSS 12(R10), Z23 // 1-b2
	VBROADCASTSS 16(R10), Z24 // wd
	VBROADCASTSS 20(R10), Z25 // step
	VBROADCASTSS 24(R10), Z26 // invBC2
	VBROADCASTSS 28(R10), Z27 // eps
	SHLQ         $2, DX
	XORQ         AX, AX
	MOVQ         DX, R11
	ANDQ         $-64, R11

loop:
	CMPQ AX, R11
	JGE  tail
	ADAM32(LOAD32U, STORE32U)
	ADDQ $64, AX
	JMP  loop

tail:
	SUBQ AX, DX
	JZ   done
	KTAIL32(DX, BX)
	ADAM32(LOAD32K, STORE32K)

done:
	VZEROUPPER
	RET

// func dot32AVX512(x, y []float32) float32
TEXT ·dot32AVX512(SB), NOSPLIT, $0-52
	MOVQ   x_base+0(FP), SI
	MOVQ   x_len+8(FP), DX
	MOVQ   y_base+24(FP), R8
	SHLQ   $2, DX
	XORQ   AX, AX
	MOVQ   DX, R10
	ANDQ   $-64, R10
	VPXORD Z0, Z0, Z0

loop:
	CMPQ    AX, R10
	JGE     tail
	VMOVUPS (SI)(AX*1), Z1
	VMULPS  (R8)(AX*1), Z1, Z1
	VADDPS  Z1, Z0, Z0
	ADDQ    $64, AX
	JMP     loop

tail: // the lanes past the end add +0, which leaves a partial sum as it is
	SUBQ      AX, DX
	JZ        reduce
	KTAIL32(DX, BX)
	VMOVUPS.Z (SI)(AX*1), K1, Z1
	VMOVUPS.Z (R8)(AX*1), K1, Z2
	VMULPS    Z2, Z1, Z1
	VADDPS    Z1, Z0, Z0

reduce: // s[k] += s[k+8], s[k] += s[k+4], s[k] += s[k+2], s[0] + s[1]
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPS        Y1, Y0, Y0
	VEXTRACTF128  $1, Y0, X1
	VADDPS        X1, X0, X0
	VMOVHLPS      X0, X0, X1
	VADDPS        X1, X0, X0
	VMOVSHDUP     X0, X1
	VADDSS        X1, X0, X0
	VMOVSS        X0, ret+48(FP)
	VZEROUPPER
	RET

// DOT4REDUCE reduces the 16 partial sums of ZA as dot32AVX512 does and
// stores the result at OFF(DI).
#define DOT4REDUCE(ZA, YA, XA, OFF) \
	VEXTRACTF64X4 $1, ZA, Y15 \
	VADDPS        Y15, YA, YA \
	VEXTRACTF128  $1, YA, X15 \
	VADDPS        X15, XA, XA \
	VMOVHLPS      XA, XA, X15 \
	VADDPS        X15, XA, XA \
	VMOVSHDUP     XA, X15 \
	VADDSS        X15, XA, XA \
	VMOVSS        XA, OFF(DI)

// func dot4x32AVX512(dst, x []float32, ys [][]float32)
// dst[t] = dot32(x, ys[t]) for t = 0..3; every ys[t] is at least as long
// as x.
TEXT ·dot4x32AVX512(SB), NOSPLIT, $0-72
	MOVQ   dst_base+0(FP), DI
	MOVQ   x_base+24(FP), SI
	MOVQ   x_len+32(FP), DX
	MOVQ   ys_base+48(FP), BX
	MOVQ   0(BX), R8
	MOVQ   24(BX), R9
	MOVQ   48(BX), R10
	MOVQ   72(BX), R11
	SHLQ   $2, DX
	XORQ   AX, AX
	MOVQ   DX, R12
	ANDQ   $-64, R12
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4

loop:
	CMPQ    AX, R12
	JGE     tail
	VMOVUPS (SI)(AX*1), Z0
	VMULPS  (R8)(AX*1), Z0, Z5
	VMULPS  (R9)(AX*1), Z0, Z6
	VMULPS  (R10)(AX*1), Z0, Z7
	VMULPS  (R11)(AX*1), Z0, Z8
	VADDPS  Z5, Z1, Z1
	VADDPS  Z6, Z2, Z2
	VADDPS  Z7, Z3, Z3
	VADDPS  Z8, Z4, Z4
	ADDQ    $64, AX
	JMP     loop

tail: // the lanes past the end add +0 (see dot32AVX512)
	SUBQ      AX, DX
	JZ        reduce
	KTAIL32(DX, R13)
	VMOVUPS.Z (SI)(AX*1), K1, Z0
	VMOVUPS.Z (R8)(AX*1), K1, Z5
	VMOVUPS.Z (R9)(AX*1), K1, Z6
	VMOVUPS.Z (R10)(AX*1), K1, Z7
	VMOVUPS.Z (R11)(AX*1), K1, Z8
	VMULPS    Z5, Z0, Z5
	VMULPS    Z6, Z0, Z6
	VMULPS    Z7, Z0, Z7
	VMULPS    Z8, Z0, Z8
	VADDPS    Z5, Z1, Z1
	VADDPS    Z6, Z2, Z2
	VADDPS    Z7, Z3, Z3
	VADDPS    Z8, Z4, Z4

reduce:
	DOT4REDUCE(Z1, Y1, X1, 0)
	DOT4REDUCE(Z2, Y2, X2, 4)
	DOT4REDUCE(Z3, Y3, X3, 8)
	DOT4REDUCE(Z4, Y4, X4, 12)
	VZEROUPPER
	RET

// func biasReLU32AVX512(x, b []float32)
TEXT ·biasReLU32AVX512(SB), NOSPLIT, $0-48
	MOVQ   x_base+0(FP), DI
	MOVQ   x_len+8(FP), DX
	MOVQ   b_base+24(FP), SI
	SHLQ   $2, DX
	XORQ   AX, AX
	MOVQ   DX, R10
	ANDQ   $-64, R10
	VPXORD Z9, Z9, Z9

loop:
	CMPQ    AX, R10
	JGE     tail
	VMOVUPS (DI)(AX*1), Z0
	VADDPS  (SI)(AX*1), Z0, Z0
	VMAXPS  Z9, Z0, Z1        // max(t, 0): 0 when t is 0 or NaN
	VCMPPS  $3, Z0, Z0, K2    // t is NaN (UNORD_Q)
	VMOVUPS Z0, K2, Z1        // keep the NaN, as Go's max does
	VMOVUPS Z1, (DI)(AX*1)
	ADDQ    $64, AX
	JMP     loop

tail:
	SUBQ      AX, DX
	JZ        done
	KTAIL32(DX, BX)
	VMOVUPS.Z (DI)(AX*1), K1, Z0
	VMOVUPS.Z (SI)(AX*1), K1, Z2
	VADDPS    Z2, Z0, Z0
	VMAXPS    Z9, Z0, Z1
	VCMPPS    $3, Z0, Z0, K2
	VMOVUPS   Z0, K2, Z1
	VMOVUPS   Z1, K1, (DI)(AX*1)

done:
	VZEROUPPER
	RET

// func reluBack32AVX512(dst, g, y, s []float32, scale bool)
TEXT ·reluBack32AVX512(SB), NOSPLIT, $0-97
	MOVQ    dst_base+0(FP), DI
	MOVQ    dst_len+8(FP), DX
	MOVQ    g_base+24(FP), SI
	MOVQ    y_base+48(FP), R8
	MOVQ    s_base+72(FP), R9
	MOVBQZX scale+96(FP), R11
	SHLQ    $2, DX
	XORQ    AX, AX
	MOVQ    DX, R10
	ANDQ    $-64, R10
	VPXORD  Z9, Z9, Z9

loop:
	CMPQ    AX, R10
	JGE     tail
	VMOVUPS (R8)(AX*1), Z1
	VCMPPS  $0x1e, Z9, Z1, K2 // y > 0 (GT_OQ, false for NaN)
	VMOVUPS (SI)(AX*1), Z0
	TESTQ   R11, R11
	JZ      keep
	VMULPS  (R9)(AX*1), Z0, Z0

keep:
	VMOVUPS.Z Z0, K2, Z0
	VMOVUPS   Z0, (DI)(AX*1)
	ADDQ      $64, AX
	JMP       loop

tail:
	SUBQ      AX, DX
	JZ        done
	KTAIL32(DX, BX)
	VMOVUPS.Z (R8)(AX*1), K1, Z1
	VCMPPS    $0x1e, Z9, Z1, K2
	VMOVUPS.Z (SI)(AX*1), K1, Z0
	TESTQ     R11, R11
	JZ        keeptail
	VMOVUPS.Z (R9)(AX*1), K1, Z3
	VMULPS    Z3, Z0, Z0

keeptail:
	VMOVUPS.Z Z0, K2, Z0
	VMOVUPS   Z0, K1, (DI)(AX*1)

done:
	VZEROUPPER
	RET
