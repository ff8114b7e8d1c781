//go:build amd64 && !purego

#include "textflag.h"

// The mixed kernels (mixed.go) on blocks of 8 elements: 8 float64 in a Z
// register, 8 float32 in a Y register. VCVTPD2PS and VCVTPS2PD convert
// as Go's float32() and float64() do (round to nearest even); the
// float32 arithmetic runs on Y registers, each operation rounded.

// CONVERT converts x into dst (func(dst, x []T), len(dst) elements
// rounded up to N; the slices have that room): each block of N elements
// is read at SI+AX*SS by CVT into R and written at DI+AX*DS by MOV.
#define CONVERT(CVT, SS, R, MOV, DS, N) \
	MOVQ dst_base+0(FP), DI \
	MOVQ dst_len+8(FP), CX \
	MOVQ x_base+24(FP), SI \
	XORQ AX, AX \
loop: \
	CMPQ AX, CX \
	JGE  done \
	CVT  (SI)(AX*SS), R \
	MOV  R, (DI)(AX*DS) \
	ADDQ $N, AX \
	JMP  loop \
done: \
	VZEROUPPER \
	RET

// func to32AVX512(dst []float32, x []float64)
TEXT ·to32AVX512(SB), NOSPLIT, $0-48
	CONVERT(VCVTPD2PS, 8, Y0, VMOVUPS, 4, 8)

// func mulTo32AVX512(dst []float32, x, y []float64)
TEXT ·mulTo32AVX512(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	MOVQ y_base+48(FP), R8
	XORQ AX, AX

loop:
	CMPQ      AX, CX
	JGE       done
	VMOVUPD   (SI)(AX*8), Z0
	VMULPD    (R8)(AX*8), Z0, Z0
	VCVTPD2PS Z0, Y0
	VMOVUPS   Y0, (DI)(AX*4)
	ADDQ      $8, AX
	JMP       loop

done:
	VZEROUPPER
	RET

// func mulPrunedTo32AVX512(dst []float32, x, m []float64, thr float64)
TEXT ·mulPrunedTo32AVX512(SB), NOSPLIT, $0-80
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	MOVQ         x_base+24(FP), SI
	MOVQ         m_base+48(FP), R8
	VBROADCASTSD thr+72(FP), Z8
	MOVQ         $0x7fffffffffffffff, BX
	VPBROADCASTQ BX, Z9
	XORQ         AX, AX

loop:
	CMPQ      AX, CX
	JGE       done
	VMOVUPD   (R8)(AX*8), Z1
	VPANDQ    Z9, Z1, Z2
	VCMPPD    $0x15, Z8, Z2, K2 // keep where !(|m| < thr): NLT_UQ, true for NaN
	VMOVUPD.Z Z1, K2, Z1
	VMULPD    (SI)(AX*8), Z1, Z1
	VCVTPD2PS Z1, Y1
	VMOVUPS   Y1, (DI)(AX*4)
	ADDQ      $8, AX
	JMP       loop

done:
	VZEROUPPER
	RET

// func maskGradFrom32AVX512(gw, gm []float64, d []float32, w, m []float64)
TEXT ·maskGradFrom32AVX512(SB), NOSPLIT, $0-120
	MOVQ gw_base+0(FP), DI
	MOVQ gw_len+8(FP), CX
	MOVQ gm_base+24(FP), R9
	MOVQ d_base+48(FP), SI
	MOVQ w_base+72(FP), R10
	MOVQ m_base+96(FP), R11
	XORQ AX, AX

loop:
	CMPQ      AX, CX
	JGE       done
	VCVTPS2PD (SI)(AX*4), Z0
	VMULPD    (R11)(AX*8), Z0, Z1
	VADDPD    (DI)(AX*8), Z1, Z1
	VMOVUPD   Z1, (DI)(AX*8)
	VMULPD    (R10)(AX*8), Z0, Z2
	VADDPD    (R9)(AX*8), Z2, Z2
	VMOVUPD   Z2, (R9)(AX*8)
	ADDQ      $8, AX
	JMP       loop

done:
	VZEROUPPER
	RET

// func addFrom32AVX512(dst []float64, x []float32)
TEXT ·addFrom32AVX512(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	XORQ AX, AX

loop:
	CMPQ      AX, CX
	JGE       done
	VCVTPS2PD (SI)(AX*4), Z0
	VADDPD    (DI)(AX*8), Z0, Z0
	VMOVUPD   Z0, (DI)(AX*8)
	ADDQ      $8, AX
	JMP       loop

done:
	VZEROUPPER
	RET

// func adamF32AVX512(theta, grad []float64, m, v []float32, p *adamParams32)
// Y8-Y15 hold b1, 1-b1, b2, 1-b2, wd, step, invBC2, eps; the body is
// ADAM32's (elementwise32_amd64.s) on Y registers.
TEXT ·adamF32AVX512(SB), NOSPLIT, $0-104
	MOVQ         theta_base+0(FP), DI
	MOVQ         theta_len+8(FP), CX
	MOVQ         grad_base+24(FP), SI
	MOVQ         m_base+48(FP), R8
	MOVQ         v_base+72(FP), R9
	MOVQ         p+96(FP), R10
	VBROADCASTSS 0(R10), Y8
	VBROADCASTSS 4(R10), Y9
	VBROADCASTSS 8(R10), Y10
	VBROADCASTSS 12(R10), Y11
	VBROADCASTSS 16(R10), Y12
	VBROADCASTSS 20(R10), Y13
	VBROADCASTSS 24(R10), Y14
	VBROADCASTSS 28(R10), Y15
	XORQ         AX, AX

loop:
	CMPQ      AX, CX
	JGE       done
	VCVTPD2PS (DI)(AX*8), Y0 // x
	VCVTPD2PS (SI)(AX*8), Y1 // grad
	VMULPS    Y0, Y12, Y2
	VADDPS    Y2, Y1, Y1     // g = grad + wd*x
	VMOVUPS   (R8)(AX*4), Y2
	VMULPS    Y2, Y8, Y2
	VMULPS    Y1, Y9, Y3
	VADDPS    Y3, Y2, Y2     // m = b1*m + c1*g
	VMOVUPS   (R9)(AX*4), Y4
	VMULPS    Y4, Y10, Y4
	VMULPS    Y1, Y11, Y5
	VMULPS    Y1, Y5, Y5
	VADDPS    Y5, Y4, Y4     // v = b2*v + (c2*g)*g
	VMOVUPS   Y2, (R8)(AX*4)
	VMOVUPS   Y4, (R9)(AX*4)
	VSQRTPS   Y4, Y6
	VMULPS    Y14, Y6, Y6
	VADDPS    Y15, Y6, Y6
	VMULPS    Y2, Y13, Y7
	VDIVPS    Y6, Y7, Y7
	VSUBPS    Y7, Y0, Y0
	VCVTPS2PD Y0, Z0
	VMOVUPD   Z0, (DI)(AX*8)
	ADDQ      $8, AX
	JMP       loop

done:
	VZEROUPPER
	RET

// The AVX2 versions take blocks of 4 elements: 4 float64 in a Y
// register, 4 float32 in an X register.

// func to32AVX2(dst []float32, x []float64)
TEXT ·to32AVX2(SB), NOSPLIT, $0-48
	CONVERT(VCVTPD2PSY, 8, X0, VMOVUPS, 4, 4)

// func mulTo32AVX2(dst []float32, x, y []float64)
TEXT ·mulTo32AVX2(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	MOVQ y_base+48(FP), R8
	XORQ AX, AX

loop:
	CMPQ       AX, CX
	JGE        done
	VMOVUPD    (SI)(AX*8), Y0
	VMULPD     (R8)(AX*8), Y0, Y0
	VCVTPD2PSY Y0, X0
	VMOVUPS    X0, (DI)(AX*4)
	ADDQ       $4, AX
	JMP        loop

done:
	VZEROUPPER
	RET

// func mulPrunedTo32AVX2(dst []float32, x, m []float64, thr float64)
TEXT ·mulPrunedTo32AVX2(SB), NOSPLIT, $0-80
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	MOVQ         x_base+24(FP), SI
	MOVQ         m_base+48(FP), R8
	VBROADCASTSD thr+72(FP), Y8
	MOVQ         $0x7fffffffffffffff, BX
	MOVQ         BX, X9
	VPBROADCASTQ X9, Y9
	XORQ         AX, AX

loop:
	CMPQ       AX, CX
	JGE        done
	VMOVUPD    (R8)(AX*8), Y1
	VANDPD     Y9, Y1, Y2
	VCMPPD     $0x11, Y8, Y2, Y3 // |m| < thr: LT_OQ
	VANDNPD    Y1, Y3, Y1
	VMULPD     (SI)(AX*8), Y1, Y1
	VCVTPD2PSY Y1, X1
	VMOVUPS    X1, (DI)(AX*4)
	ADDQ       $4, AX
	JMP        loop

done:
	VZEROUPPER
	RET

// func maskGradFrom32AVX2(gw, gm []float64, d []float32, w, m []float64)
TEXT ·maskGradFrom32AVX2(SB), NOSPLIT, $0-120
	MOVQ gw_base+0(FP), DI
	MOVQ gw_len+8(FP), CX
	MOVQ gm_base+24(FP), R9
	MOVQ d_base+48(FP), SI
	MOVQ w_base+72(FP), R10
	MOVQ m_base+96(FP), R11
	XORQ AX, AX

loop:
	CMPQ      AX, CX
	JGE       done
	VCVTPS2PD (SI)(AX*4), Y0
	VMULPD    (R11)(AX*8), Y0, Y1
	VADDPD    (DI)(AX*8), Y1, Y1
	VMOVUPD   Y1, (DI)(AX*8)
	VMULPD    (R10)(AX*8), Y0, Y2
	VADDPD    (R9)(AX*8), Y2, Y2
	VMOVUPD   Y2, (R9)(AX*8)
	ADDQ      $4, AX
	JMP       loop

done:
	VZEROUPPER
	RET

// func addFrom32AVX2(dst []float64, x []float32)
TEXT ·addFrom32AVX2(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	XORQ AX, AX

loop:
	CMPQ      AX, CX
	JGE       done
	VCVTPS2PD (SI)(AX*4), Y0
	VADDPD    (DI)(AX*8), Y0, Y0
	VMOVUPD   Y0, (DI)(AX*8)
	ADDQ      $4, AX
	JMP       loop

done:
	VZEROUPPER
	RET

// func adamF32AVX2(theta, grad []float64, m, v []float32, p *adamParams32)
// adamF32AVX512's body on X registers (4 float32 lanes).
TEXT ·adamF32AVX2(SB), NOSPLIT, $0-104
	MOVQ         theta_base+0(FP), DI
	MOVQ         theta_len+8(FP), CX
	MOVQ         grad_base+24(FP), SI
	MOVQ         m_base+48(FP), R8
	MOVQ         v_base+72(FP), R9
	MOVQ         p+96(FP), R10
	VBROADCASTSS 0(R10), X8
	VBROADCASTSS 4(R10), X9
	VBROADCASTSS 8(R10), X10
	VBROADCASTSS 12(R10), X11
	VBROADCASTSS 16(R10), X12
	VBROADCASTSS 20(R10), X13
	VBROADCASTSS 24(R10), X14
	VBROADCASTSS 28(R10), X15
	XORQ         AX, AX

loop:
	CMPQ       AX, CX
	JGE        done
	VCVTPD2PSY (DI)(AX*8), X0 // x
	VCVTPD2PSY (SI)(AX*8), X1 // grad
	VMULPS     X0, X12, X2
	VADDPS     X2, X1, X1     // g = grad + wd*x
	VMOVUPS    (R8)(AX*4), X2
	VMULPS     X2, X8, X2
	VMULPS     X1, X9, X3
	VADDPS     X3, X2, X2     // m = b1*m + c1*g
	VMOVUPS    (R9)(AX*4), X4
	VMULPS     X4, X10, X4
	VMULPS     X1, X11, X5
	VMULPS     X1, X5, X5
	VADDPS     X5, X4, X4     // v = b2*v + (c2*g)*g
	VMOVUPS    X2, (R8)(AX*4)
	VMOVUPS    X4, (R9)(AX*4)
	VSQRTPS    X4, X6
	VMULPS     X14, X6, X6
	VADDPS     X15, X6, X6
	VMULPS     X2, X13, X7
	VDIVPS     X6, X7, X7
	VSUBPS     X7, X0, X0
	VCVTPS2PD  X0, Y0
	VMOVUPD    Y0, (DI)(AX*8)
	ADDQ       $4, AX
	JMP        loop

done:
	VZEROUPPER
	RET

// func from32AVX512(dst []float64, x []float32)
TEXT ·from32AVX512(SB), NOSPLIT, $0-48
	CONVERT(VCVTPS2PD, 4, Z0, VMOVUPD, 8, 8)

// func from32AVX2(dst []float64, x []float32)
TEXT ·from32AVX2(SB), NOSPLIT, $0-48
	CONVERT(VCVTPS2PD, 4, Y0, VMOVUPD, 8, 4)

