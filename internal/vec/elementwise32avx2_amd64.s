//go:build amd64 && !purego

#include "textflag.h"

// The AVX2 versions of the float32 elementwise kernels: whole blocks of 8
// elements (one Y register; the caller passes a multiple of 8) with the
// roundings of the Go versions (portable32.go), which take the rest.

// func dot32PartialsAVX2(x, y []float32, s *[16]float32)
// s[k] = the sum over i = k mod 16 of x[i]*y[i], len(x) a multiple of 16.
TEXT ·dot32PartialsAVX2(SB), NOSPLIT, $0-56
	MOVQ   x_base+0(FP), SI
	MOVQ   x_len+8(FP), CX
	MOVQ   y_base+24(FP), R8
	MOVQ   s+48(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	XORQ   AX, AX

loop:
	CMPQ    AX, CX
	JGE     done
	VMOVUPS (SI)(AX*4), Y2
	VMULPS  (R8)(AX*4), Y2, Y2
	VADDPS  Y2, Y0, Y0
	VMOVUPS 32(SI)(AX*4), Y3
	VMULPS  32(R8)(AX*4), Y3, Y3
	VADDPS  Y3, Y1, Y1
	ADDQ    $16, AX
	JMP     loop

done:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VZEROUPPER
	RET

// func mul32AVX2(dst, x, y []float32, add bool)
TEXT ·mul32AVX2(SB), NOSPLIT, $0-73
	MOVQ    dst_base+0(FP), DI
	MOVQ    dst_len+8(FP), CX
	MOVQ    x_base+24(FP), SI
	MOVQ    y_base+48(FP), R8
	MOVBQZX add+72(FP), R9
	XORQ    AX, AX
	TESTQ   R9, R9
	JNZ     addloop

setloop:
	CMPQ    AX, CX
	JGE     done
	VMOVUPS (SI)(AX*4), Y0
	VMULPS  (R8)(AX*4), Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	JMP     setloop

addloop:
	CMPQ    AX, CX
	JGE     done
	VMOVUPS (SI)(AX*4), Y0
	VMULPS  (R8)(AX*4), Y0, Y0
	VADDPS  (DI)(AX*4), Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	JMP     addloop

done:
	VZEROUPPER
	RET

// func biasReLU32AVX2(x, b []float32)
TEXT ·biasReLU32AVX2(SB), NOSPLIT, $0-48
	MOVQ   x_base+0(FP), DI
	MOVQ   x_len+8(FP), CX
	MOVQ   b_base+24(FP), SI
	VXORPS Y9, Y9, Y9
	XORQ   AX, AX

loop:
	CMPQ      AX, CX
	JGE       done
	VMOVUPS   (DI)(AX*4), Y0
	VADDPS    (SI)(AX*4), Y0, Y0
	VMAXPS    Y9, Y0, Y1         // max(t, 0): 0 when t is 0 or NaN
	VCMPPS    $3, Y0, Y0, Y2     // t is NaN (UNORD_Q)
	VBLENDVPS Y2, Y0, Y1, Y1     // keep the NaN, as Go's max does
	VMOVUPS   Y1, (DI)(AX*4)
	ADDQ      $8, AX
	JMP       loop

done:
	VZEROUPPER
	RET

// func reluBack32AVX2(dst, g, y, s []float32, scale bool)
TEXT ·reluBack32AVX2(SB), NOSPLIT, $0-97
	MOVQ    dst_base+0(FP), DI
	MOVQ    dst_len+8(FP), CX
	MOVQ    g_base+24(FP), SI
	MOVQ    y_base+48(FP), R8
	MOVQ    s_base+72(FP), R9
	MOVBQZX scale+96(FP), R11
	VXORPS  Y9, Y9, Y9
	XORQ    AX, AX

loop:
	CMPQ    AX, CX
	JGE     done
	VMOVUPS (R8)(AX*4), Y1
	VCMPPS  $0x1e, Y9, Y1, Y1 // y > 0 (GT_OQ, false for NaN)
	VMOVUPS (SI)(AX*4), Y0
	TESTQ   R11, R11
	JZ      keep
	VMULPS  (R9)(AX*4), Y0, Y0

keep:
	VANDPS  Y1, Y0, Y0 // +0 where y is not positive
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	JMP     loop

done:
	VZEROUPPER
	RET
