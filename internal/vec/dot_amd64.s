//go:build amd64 && !purego

#include "textflag.h"
#include "strip_amd64.h"

// Both kernels sum as gonum's DotUnitary: element i goes to lane i mod 4
// of one accumulator while four elements remain (DotUnitary's X7 and X8
// are its lanes 0-1 and 2-3), the last one to three elements go to lane 0
// one at a time, and the result is (s0 + s2) + (s1 + s3).

// func dotAVX2(x, y []float64) (sum float64)
TEXT ·dotAVX2(SB), NOSPLIT, $0-56
	MOVQ   x_base+0(FP), SI
	MOVQ   x_len+8(FP), CX
	MOVQ   y_base+24(FP), DI
	MOVQ   CX, BX
	ANDQ   $-4, BX
	XORQ   AX, AX
	VXORPD Y0, Y0, Y0
	CMPQ   AX, BX
	JGE    tail

loop:
	VMOVUPD (SI)(AX*8), Y1
	VMULPD  (DI)(AX*8), Y1, Y1
	VADDPD  Y1, Y0, Y0
	ADDQ    $4, AX
	CMPQ    AX, BX
	JL      loop

tail:
	VEXTRACTF128 $1, Y0, X2 // (s2, s3)
	CMPQ         AX, CX
	JGE          reduce

loop1:
	VMOVSD (SI)(AX*8), X1
	VMULSD (DI)(AX*8), X1, X1
	VADDSD X1, X0, X0
	INCQ   AX
	CMPQ   AX, CX
	JL     loop1

reduce:
	VADDPD    X2, X0, X0 // (s0+s2, s1+s3)
	VUNPCKHPD X0, X0, X1
	VADDSD    X1, X0, X0
	VMOVSD    X0, sum+48(FP)
	VZEROUPPER
	RET

// func dotNAVX2(dst, x []float64, ys [][]float64)
TEXT ·dotNAVX2(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ x_base+24(FP), SI
	MOVQ x_len+32(FP), CX
	MOVQ ys_base+48(FP), R8
	MOVQ ys_len+56(FP), R9
	SHRQ $2, R9
	JZ   done
	MOVQ CX, BX
	ANDQ $-4, BX

group:
	MOVQ   0(R8), R10
	MOVQ   24(R8), R11
	MOVQ   48(R8), R12
	MOVQ   72(R8), R13
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ   AX, AX
	CMPQ   AX, BX
	JGE    tail

loop:
	VMOVUPD (SI)(AX*8), Y4
	VMULPD  (R10)(AX*8), Y4, Y5
	VMULPD  (R11)(AX*8), Y4, Y6
	VMULPD  (R12)(AX*8), Y4, Y7
	VMULPD  (R13)(AX*8), Y4, Y8
	VADDPD  Y5, Y0, Y0
	VADDPD  Y6, Y1, Y1
	VADDPD  Y7, Y2, Y2
	VADDPD  Y8, Y3, Y3
	ADDQ    $4, AX
	CMPQ    AX, BX
	JL      loop

tail:
	VEXTRACTF128 $1, Y0, X8
	VEXTRACTF128 $1, Y1, X9
	VEXTRACTF128 $1, Y2, X10
	VEXTRACTF128 $1, Y3, X11
	CMPQ         AX, CX
	JGE          reduce

loop1:
	VMOVSD (SI)(AX*8), X4
	VMULSD (R10)(AX*8), X4, X5
	VMULSD (R11)(AX*8), X4, X6
	VMULSD (R12)(AX*8), X4, X7
	VMULSD (R13)(AX*8), X4, X12
	VADDSD X5, X0, X0
	VADDSD X6, X1, X1
	VADDSD X7, X2, X2
	VADDSD X12, X3, X3
	INCQ   AX
	CMPQ   AX, CX
	JL     loop1

reduce:
	VADDPD    X8, X0, X0
	VADDPD    X9, X1, X1
	VADDPD    X10, X2, X2
	VADDPD    X11, X3, X3
	VUNPCKHPD X0, X0, X4
	VUNPCKHPD X1, X1, X5
	VUNPCKHPD X2, X2, X6
	VUNPCKHPD X3, X3, X7
	VADDSD    X4, X0, X0
	VADDSD    X5, X1, X1
	VADDSD    X6, X2, X2
	VADDSD    X7, X3, X3
	VMOVSD    X0, 0(DI)
	VMOVSD    X1, 8(DI)
	VMOVSD    X2, 16(DI)
	VMOVSD    X3, 24(DI)
	ADDQ      $32, DI
	ADDQ      $96, R8
	DECQ      R9
	JNZ       group

done:
	VZEROUPPER
	RET

// func dotBlockAVX2(part []float64, xs, ys [][]float64, n int)
//
// For every ys[t] and the four xs[a], part[16t+4a : 16t+4a+4] = the four
// partial sums of DotUnitary's main loop over the first n elements (n a
// multiple of 4). Two ys go at a time, so that eight chains of additions
// overlap; an odd last one goes alone.
TEXT ·dotBlockAVX2(SB), NOSPLIT, $0-80
	MOVQ  part_base+0(FP), DI
	MOVQ  xs_base+24(FP), R8
	MOVQ  0(R8), R10
	MOVQ  24(R8), R11
	MOVQ  48(R8), R12
	MOVQ  72(R8), R13
	MOVQ  ys_base+48(FP), R9
	MOVQ  ys_len+56(FP), R14
	MOVQ  n+72(FP), CX
	CMPQ  R14, $2
	JL    yone

ypair:
	MOVQ   (R9), SI
	MOVQ   24(R9), DX
	ZERO8Y
	XORQ   AX, AX
	CMPQ   AX, CX
	JGE    storepair

looppair:
	VMOVUPD (SI)(AX*8), Y8
	VMOVUPD (DX)(AX*8), Y9
	VMOVUPD (R10)(AX*8), Y10
	VMOVUPD (R11)(AX*8), Y11
	VMOVUPD (R12)(AX*8), Y12
	VMOVUPD (R13)(AX*8), Y13
	VMULPD  Y10, Y8, Y14
	VMULPD  Y11, Y8, Y15
	VADDPD  Y14, Y0, Y0
	VADDPD  Y15, Y1, Y1
	VMULPD  Y12, Y8, Y14
	VMULPD  Y13, Y8, Y15
	VADDPD  Y14, Y2, Y2
	VADDPD  Y15, Y3, Y3
	VMULPD  Y10, Y9, Y14
	VMULPD  Y11, Y9, Y15
	VADDPD  Y14, Y4, Y4
	VADDPD  Y15, Y5, Y5
	VMULPD  Y12, Y9, Y14
	VMULPD  Y13, Y9, Y15
	VADDPD  Y14, Y6, Y6
	VADDPD  Y15, Y7, Y7
	ADDQ    $4, AX
	CMPQ    AX, CX
	JL      looppair

storepair:
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y4, 128(DI)
	VMOVUPD Y5, 160(DI)
	VMOVUPD Y6, 192(DI)
	VMOVUPD Y7, 224(DI)
	ADDQ    $256, DI
	ADDQ    $48, R9
	SUBQ    $2, R14
	CMPQ    R14, $2
	JGE     ypair

yone:
	TESTQ R14, R14
	JZ    done

yloop:
	MOVQ   (R9), SI
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ   AX, AX
	CMPQ   AX, CX
	JGE    store

loop:
	VMOVUPD (SI)(AX*8), Y4
	VMULPD  (R10)(AX*8), Y4, Y5
	VMULPD  (R11)(AX*8), Y4, Y6
	VMULPD  (R12)(AX*8), Y4, Y7
	VMULPD  (R13)(AX*8), Y4, Y8
	VADDPD  Y5, Y0, Y0
	VADDPD  Y6, Y1, Y1
	VADDPD  Y7, Y2, Y2
	VADDPD  Y8, Y3, Y3
	ADDQ    $4, AX
	CMPQ    AX, CX
	JL      loop

store:
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ    $128, DI
	ADDQ    $24, R9
	DECQ    R14
	JNZ     yloop

done:
	VZEROUPPER
	RET
