//go:build amd64 && !purego

#include "textflag.h"

// Both kernels follow adamGo operation by operation:
//
//	g  = grad + wd*x
//	mi = b1*m + c1*g
//	vi = b2*v + (c2*g)*g
//	x  = x - (step*mi) / (sqrt(vi)*invBC2 + eps)

#define TH DI
#define GR SI
#define MM R8
#define VV R9
#define OFF AX
#define END CX

// ADAM_BODY updates the lanes of one register; LOAD and STORE are the
// (masked) moves, B1 ... EPS the broadcast scalars, R0 ... R7 scratch.
#define ADAM_BODY(LOAD, STORE, B1, C1, B2, C2, WD, STEP, INV, EPS, R0, R1, R2, R3, R4, R5, R6, R7) \
	LOAD(TH, R0)            \
	LOAD(GR, R1)            \
	VMULPD R0, WD, R2 \
	VADDPD R2, R1, R1 \
	LOAD(MM, R2)            \
	VMULPD R2, B1, R2 \
	VMULPD R1, C1, R3 \
	VADDPD R3, R2, R2 \
	LOAD(VV, R4)            \
	VMULPD R4, B2, R4 \
	VMULPD R1, C2, R5 \
	VMULPD R1, R5, R5 \
	VADDPD R5, R4, R4 \
	STORE(R2, MM)           \
	STORE(R4, VV)           \
	VSQRTPD R4, R6          \
	VMULPD INV, R6, R6 \
	VADDPD EPS, R6, R6 \
	VMULPD R2, STEP, R7 \
	VDIVPD R6, R7, R7 \
	VSUBPD R7, R0, R0 \
	STORE(R0, TH)

#define LOADU(P, R) VMOVUPD (P)(OFF*1), R
#define STOREU(R, P) VMOVUPD R, (P)(OFF*1)
#define LOADK(P, R) VMOVUPD.Z (P)(OFF*1), K1, R
#define STOREK(R, P) VMOVUPD R, K1, (P)(OFF*1)
#define LOADS(P, R) VMOVSD (P)(OFF*1), R
#define STORES(R, P) VMOVSD R, (P)(OFF*1)

// func adamAVX512(theta, grad, m, v []float64, b1, c1, b2, c2, wd, step, invBC2, eps float64)
TEXT ·adamAVX512(SB), NOSPLIT, $0-160
	MOVQ         theta_base+0(FP), TH
	MOVQ         theta_len+8(FP), END
	MOVQ         grad_base+24(FP), GR
	MOVQ         m_base+48(FP), MM
	MOVQ         v_base+72(FP), VV
	VBROADCASTSD b1+96(FP), Z20
	VBROADCASTSD c1+104(FP), Z21
	VBROADCASTSD b2+112(FP), Z22
	VBROADCASTSD c2+120(FP), Z23
	VBROADCASTSD wd+128(FP), Z24
	VBROADCASTSD step+136(FP), Z25
	VBROADCASTSD invBC2+144(FP), Z26
	VBROADCASTSD eps+152(FP), Z27
	SHLQ         $3, END
	XORQ         OFF, OFF
	MOVQ         END, DX
	ANDQ         $-64, DX // bytes in whole registers

loop:
	CMPQ OFF, DX
	JGE  tail
	ADAM_BODY(LOADU, STOREU, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	ADDQ $64, OFF
	JMP  loop

tail:
	MOVQ  END, CX
	SUBQ  OFF, CX
	JZ    done
	SHRQ  $3, CX
	MOVQ  $1, BX
	SHLQ  CX, BX
	DECQ  BX
	KMOVW BX, K1
	ADAM_BODY(LOADK, STOREK, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)

done:
	VZEROUPPER
	RET

// func adamAVX2(theta, grad, m, v []float64, b1, c1, b2, c2, wd, step, invBC2, eps float64)
TEXT ·adamAVX2(SB), NOSPLIT, $0-160
	MOVQ         theta_base+0(FP), TH
	MOVQ         theta_len+8(FP), END
	MOVQ         grad_base+24(FP), GR
	MOVQ         m_base+48(FP), MM
	MOVQ         v_base+72(FP), VV
	VBROADCASTSD b1+96(FP), Y8
	VBROADCASTSD c1+104(FP), Y9
	VBROADCASTSD b2+112(FP), Y10
	VBROADCASTSD c2+120(FP), Y11
	VBROADCASTSD wd+128(FP), Y12
	VBROADCASTSD step+136(FP), Y13
	VBROADCASTSD invBC2+144(FP), Y14
	VBROADCASTSD eps+152(FP), Y15
	SHLQ         $3, END
	XORQ         OFF, OFF
	MOVQ         END, DX
	ANDQ         $-32, DX

loop2:
	CMPQ OFF, DX
	JGE  tail2
	ADAM_BODY(LOADU, STOREU, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	ADDQ $32, OFF
	JMP  loop2

tail2: // one element at a time, on the low lanes
	CMPQ OFF, END
	JGE  done2
	ADAM_BODY(LOADS, STORES, X8, X9, X10, X11, X12, X13, X14, X15, X0, X1, X2, X3, X4, X5, X6, X7)
	ADDQ $8, OFF
	JMP  tail2

done2:
	VZEROUPPER
	RET
