//go:build amd64 && !purego

#include "textflag.h"

// The elementwise kernels: one product per element, then (for mulAdd)
// one sum, each rounded as in Go; the mask of mulPruned replaces small
// mask entries by +0 before the product, as maskedRow in gnn does.

#define KTAIL(LEFTB, TMP) \
	MOVQ LEFTB, CX   \
	SHRQ $3, CX      \
	MOVQ $1, TMP     \
	SHLQ CX, TMP     \
	DECQ TMP         \
	KMOVW TMP, K1

// func mulAVX512(dst, x, y []float64, add bool)
TEXT ·mulAVX512(SB), NOSPLIT, $0-73
	MOVQ    dst_base+0(FP), DI
	MOVQ    dst_len+8(FP), DX
	MOVQ    x_base+24(FP), SI
	MOVQ    y_base+48(FP), R8
	MOVBQZX add+72(FP), R9
	SHLQ    $3, DX
	XORQ    AX, AX
	MOVQ    DX, R10
	ANDQ    $-64, R10
	TESTQ   R9, R9
	JNZ     addloop

setloop:
	CMPQ    AX, R10
	JGE     settail
	VMOVUPD (SI)(AX*1), Z0
	VMULPD  (R8)(AX*1), Z0, Z0
	VMOVUPD Z0, (DI)(AX*1)
	ADDQ    $64, AX
	JMP     setloop

settail:
	SUBQ      AX, DX
	JZ        done
	KTAIL(DX, BX)
	VMOVUPD.Z (SI)(AX*1), K1, Z0
	VMOVUPD.Z (R8)(AX*1), K1, Z1
	VMULPD    Z1, Z0, Z0
	VMOVUPD   Z0, K1, (DI)(AX*1)
	JMP       done

addloop:
	CMPQ    AX, R10
	JGE     addtail
	VMOVUPD (SI)(AX*1), Z0
	VMULPD  (R8)(AX*1), Z0, Z0
	VADDPD  (DI)(AX*1), Z0, Z0
	VMOVUPD Z0, (DI)(AX*1)
	ADDQ    $64, AX
	JMP     addloop

addtail:
	SUBQ      AX, DX
	JZ        done
	KTAIL(DX, BX)
	VMOVUPD.Z (SI)(AX*1), K1, Z0
	VMOVUPD.Z (R8)(AX*1), K1, Z1
	VMOVUPD.Z (DI)(AX*1), K1, Z2
	VMULPD    Z1, Z0, Z0
	VADDPD    Z0, Z2, Z2
	VMOVUPD   Z2, K1, (DI)(AX*1)

done:
	VZEROUPPER
	RET

// func mulAVX2(dst, x, y []float64, add bool)
TEXT ·mulAVX2(SB), NOSPLIT, $0-73
	MOVQ    dst_base+0(FP), DI
	MOVQ    dst_len+8(FP), DX
	MOVQ    x_base+24(FP), SI
	MOVQ    y_base+48(FP), R8
	MOVBQZX add+72(FP), R9
	SHLQ    $3, DX
	XORQ    AX, AX
	MOVQ    DX, R10
	ANDQ    $-32, R10
	TESTQ   R9, R9
	JNZ     addloop

setloop:
	CMPQ    AX, R10
	JGE     settail
	VMOVUPD (SI)(AX*1), Y0
	VMULPD  (R8)(AX*1), Y0, Y0
	VMOVUPD Y0, (DI)(AX*1)
	ADDQ    $32, AX
	JMP     setloop

settail:
	CMPQ   AX, DX
	JGE    done
	VMOVSD (SI)(AX*1), X0
	VMULSD (R8)(AX*1), X0, X0
	VMOVSD X0, (DI)(AX*1)
	ADDQ   $8, AX
	JMP    settail

addloop:
	CMPQ    AX, R10
	JGE     addtail
	VMOVUPD (SI)(AX*1), Y0
	VMULPD  (R8)(AX*1), Y0, Y0
	VADDPD  (DI)(AX*1), Y0, Y0
	VMOVUPD Y0, (DI)(AX*1)
	ADDQ    $32, AX
	JMP     addloop

addtail:
	CMPQ   AX, DX
	JGE    done
	VMOVSD (SI)(AX*1), X0
	VMULSD (R8)(AX*1), X0, X0
	VADDSD (DI)(AX*1), X0, X0
	VMOVSD X0, (DI)(AX*1)
	ADDQ   $8, AX
	JMP    addtail

done:
	VZEROUPPER
	RET

// func mulPrunedAVX512(dst, x, m []float64, thr float64)
TEXT ·mulPrunedAVX512(SB), NOSPLIT, $0-80
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), DX
	MOVQ         x_base+24(FP), SI
	MOVQ         m_base+48(FP), R8
	VBROADCASTSD thr+72(FP), Z8
	MOVQ         $0x7fffffffffffffff, BX
	VPBROADCASTQ BX, Z9
	SHLQ         $3, DX
	XORQ         AX, AX
	MOVQ         DX, R10
	ANDQ         $-64, R10

loop:
	CMPQ      AX, R10
	JGE       tail
	VMOVUPD   (R8)(AX*1), Z1
	VPANDQ    Z9, Z1, Z2
	VCMPPD    $0x15, Z8, Z2, K2 // keep where !(|m| < thr): NLT_UQ, true for NaN
	VMOVUPD.Z Z1, K2, Z1
	VMULPD    (SI)(AX*1), Z1, Z1
	VMOVUPD   Z1, (DI)(AX*1)
	ADDQ      $64, AX
	JMP       loop

tail:
	SUBQ      AX, DX
	JZ        done
	KTAIL(DX, BX)
	VMOVUPD.Z (R8)(AX*1), K1, Z1
	VMOVUPD.Z (SI)(AX*1), K1, Z0
	VPANDQ    Z9, Z1, Z2
	VCMPPD    $0x15, Z8, Z2, K2
	VMOVUPD.Z Z1, K2, Z1
	VMULPD    Z0, Z1, Z1
	VMOVUPD   Z1, K1, (DI)(AX*1)

done:
	VZEROUPPER
	RET

// func mulPrunedAVX2(dst, x, m []float64, thr float64)
TEXT ·mulPrunedAVX2(SB), NOSPLIT, $0-80
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), DX
	MOVQ         x_base+24(FP), SI
	MOVQ         m_base+48(FP), R8
	VBROADCASTSD thr+72(FP), Y8
	MOVQ         $0x7fffffffffffffff, BX
	MOVQ         BX, X9
	VPBROADCASTQ X9, Y9
	SHLQ         $3, DX
	XORQ         AX, AX
	MOVQ         DX, R10
	ANDQ         $-32, R10

loop:
	CMPQ    AX, R10
	JGE     tail
	VMOVUPD (R8)(AX*1), Y1
	VANDPD  Y9, Y1, Y2
	VCMPPD  $0x11, Y8, Y2, Y3 // |m| < thr: LT_OQ
	VANDNPD Y1, Y3, Y1
	VMULPD  (SI)(AX*1), Y1, Y1
	VMOVUPD Y1, (DI)(AX*1)
	ADDQ    $32, AX
	JMP     loop

tail:
	CMPQ    AX, DX
	JGE     done
	VMOVSD  (R8)(AX*1), X1
	VANDPD  X9, X1, X2
	VCMPPD  $0x11, X8, X2, X3
	VANDNPD X1, X3, X1
	VMULSD  (SI)(AX*1), X1, X1
	VMOVSD  X1, (DI)(AX*1)
	ADDQ    $8, AX
	JMP     tail

done:
	VZEROUPPER
	RET

// Both finite kernels sum x - x, which is +0 for a finite x and NaN
// otherwise, and report whether the sum is not NaN.

// func finiteAVX512(x []float64) bool
TEXT ·finiteAVX512(SB), NOSPLIT, $0-25
	MOVQ   x_base+0(FP), SI
	MOVQ   x_len+8(FP), DX
	SHLQ   $3, DX
	XORQ   AX, AX
	MOVQ   DX, R10
	ANDQ   $-256, R10
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3

loop4:
	CMPQ    AX, R10
	JGE     loop1
	VMOVUPD (SI)(AX*1), Z4
	VMOVUPD 64(SI)(AX*1), Z5
	VMOVUPD 128(SI)(AX*1), Z6
	VMOVUPD 192(SI)(AX*1), Z7
	VSUBPD  Z4, Z4, Z4
	VSUBPD  Z5, Z5, Z5
	VSUBPD  Z6, Z6, Z6
	VSUBPD  Z7, Z7, Z7
	VADDPD  Z4, Z0, Z0
	VADDPD  Z5, Z1, Z1
	VADDPD  Z6, Z2, Z2
	VADDPD  Z7, Z3, Z3
	ADDQ    $256, AX
	JMP     loop4

loop1:
	MOVQ    DX, R10
	ANDQ    $-64, R10

loop1b:
	CMPQ    AX, R10
	JGE     tail
	VMOVUPD (SI)(AX*1), Z4
	VSUBPD  Z4, Z4, Z4
	VADDPD  Z4, Z0, Z0
	ADDQ    $64, AX
	JMP     loop1b

tail:
	SUBQ      AX, DX
	JZ        reduce
	KTAIL(DX, BX)
	VMOVUPD.Z (SI)(AX*1), K1, Z4
	VSUBPD    Z4, Z4, Z4
	VADDPD    Z4, Z0, Z0

reduce:
	VADDPD Z1, Z0, Z0
	VADDPD Z3, Z2, Z2
	VADDPD Z2, Z0, Z0
	VCMPPD $0x03, Z0, Z0, K2 // unordered: NaN
	KORTESTW K2, K2
	SETEQ  ret+24(FP)
	VZEROUPPER
	RET

// func finiteAVX2(x []float64) bool
TEXT ·finiteAVX2(SB), NOSPLIT, $0-25
	MOVQ   x_base+0(FP), SI
	MOVQ   x_len+8(FP), DX
	SHLQ   $3, DX
	XORQ   AX, AX
	MOVQ   DX, R10
	ANDQ   $-128, R10
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

loop4:
	CMPQ    AX, R10
	JGE     tail
	VMOVUPD (SI)(AX*1), Y4
	VMOVUPD 32(SI)(AX*1), Y5
	VMOVUPD 64(SI)(AX*1), Y6
	VMOVUPD 96(SI)(AX*1), Y7
	VSUBPD  Y4, Y4, Y4
	VSUBPD  Y5, Y5, Y5
	VSUBPD  Y6, Y6, Y6
	VSUBPD  Y7, Y7, Y7
	VADDPD  Y4, Y0, Y0
	VADDPD  Y5, Y1, Y1
	VADDPD  Y6, Y2, Y2
	VADDPD  Y7, Y3, Y3
	ADDQ    $128, AX
	JMP     loop4

tail:
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0

loopt:
	CMPQ   AX, DX
	JGE    reduce
	VMOVSD (SI)(AX*1), X4
	VSUBSD X4, X4, X4
	VADDSD X4, X0, X0
	ADDQ   $8, AX
	JMP    loopt

reduce:
	VUNPCKHPD X0, X0, X1
	VADDSD    X1, X0, X0
	VUCOMISD  X0, X0
	SETPC     ret+24(FP) // parity is clear unless the sum is NaN
	VZEROUPPER
	RET

// func reluAVX512(dst, x []float64)
TEXT ·reluAVX512(SB), NOSPLIT, $0-48
	MOVQ   dst_base+0(FP), DI
	MOVQ   dst_len+8(FP), DX
	MOVQ   x_base+24(FP), SI
	SHLQ   $3, DX
	XORQ   AX, AX
	MOVQ   DX, R10
	ANDQ   $-64, R10
	VPXORQ Z9, Z9, Z9

reluloop:
	CMPQ    AX, R10
	JGE     relutail
	VMOVUPD (SI)(AX*1), Z0
	VMAXPD  Z9, Z0, Z1      // max(t, 0): 0 when t is 0 or NaN
	VCMPPD  $3, Z0, Z0, K2  // t is NaN (UNORD_Q)
	VMOVUPD Z0, K2, Z1      // keep the NaN, as Go's max does
	VMOVUPD Z1, (DI)(AX*1)
	ADDQ    $64, AX
	JMP     reluloop

relutail:
	SUBQ      AX, DX
	JZ        reludone
	KTAIL(DX, BX)
	VMOVUPD.Z (SI)(AX*1), K1, Z0
	VMAXPD    Z9, Z0, Z1
	VCMPPD    $3, Z0, Z0, K2
	VMOVUPD   Z0, K2, Z1
	VMOVUPD   Z1, K1, (DI)(AX*1)

reludone:
	VZEROUPPER
	RET

// func reluBackAVX512(dst, g, y []float64)
TEXT ·reluBackAVX512(SB), NOSPLIT, $0-72
	MOVQ   dst_base+0(FP), DI
	MOVQ   dst_len+8(FP), DX
	MOVQ   g_base+24(FP), SI
	MOVQ   y_base+48(FP), R8
	SHLQ   $3, DX
	XORQ   AX, AX
	MOVQ   DX, R10
	ANDQ   $-64, R10
	VPXORQ Z9, Z9, Z9

backloop:
	CMPQ      AX, R10
	JGE       backtail
	VMOVUPD   (R8)(AX*1), Z1
	VCMPPD    $0x1e, Z9, Z1, K2 // y > 0 (GT_OQ, false for NaN)
	VMOVUPD.Z (SI)(AX*1), K2, Z0
	VMOVUPD   Z0, (DI)(AX*1)
	ADDQ      $64, AX
	JMP       backloop

backtail:
	SUBQ      AX, DX
	JZ        backdone
	KTAIL(DX, BX)
	VMOVUPD.Z (R8)(AX*1), K1, Z1
	VCMPPD    $0x1e, Z9, Z1, K2 // lanes past the end are 0: not kept
	VMOVUPD.Z (SI)(AX*1), K2, Z0
	VMOVUPD   Z0, K1, (DI)(AX*1)

backdone:
	VZEROUPPER
	RET

// func reluAVX2(dst, x []float64)
TEXT ·reluAVX2(SB), NOSPLIT, $0-48
	MOVQ   dst_base+0(FP), DI
	MOVQ   dst_len+8(FP), CX
	MOVQ   x_base+24(FP), SI
	VXORPD Y9, Y9, Y9
	XORQ   AX, AX

relu2loop:
	CMPQ      AX, CX
	JGE       relu2done
	VMOVUPD   (SI)(AX*8), Y0
	VMAXPD    Y9, Y0, Y1     // max(t, 0): 0 when t is 0 or NaN
	VCMPPD    $3, Y0, Y0, Y2 // t is NaN (UNORD_Q)
	VBLENDVPD Y2, Y0, Y1, Y1 // keep the NaN, as Go's max does
	VMOVUPD   Y1, (DI)(AX*8)
	ADDQ      $4, AX
	JMP       relu2loop

relu2done:
	VZEROUPPER
	RET

// func reluBackAVX2(dst, g, y []float64)
TEXT ·reluBackAVX2(SB), NOSPLIT, $0-72
	MOVQ   dst_base+0(FP), DI
	MOVQ   dst_len+8(FP), CX
	MOVQ   g_base+24(FP), SI
	MOVQ   y_base+48(FP), R8
	VXORPD Y9, Y9, Y9
	XORQ   AX, AX

back2loop:
	CMPQ    AX, CX
	JGE     back2done
	VMOVUPD (R8)(AX*8), Y1
	VCMPPD  $0x1e, Y9, Y1, Y1 // y > 0 (GT_OQ, false for NaN)
	VANDPD  (SI)(AX*8), Y1, Y0 // +0 where y is not positive
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ    $4, AX
	JMP     back2loop

back2done:
	VZEROUPPER
	RET
