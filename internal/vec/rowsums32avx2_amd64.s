//go:build amd64 && !purego

#include "textflag.h"

// func rowSums32AVX2(dst []float32, stride, cols int, src []float32, terms []Term32, n []int, zero bool)
// cols is a positive multiple of 8. Row by row, strips of 32 columns (four
// Y registers) and then of 8, each term's product then sum rounded as in
// rowSums32Go.
TEXT ·rowSums32AVX2(SB), NOSPLIT, $0-113
	MOVQ stride+24(FP), DX
	SHLQ $2, DX                // stride in bytes
	MOVQ cols+32(FP), R15      // columns
	MOVQ src_base+40(FP), SI
	MOVQ dst_base+0(FP), DI    // the row
	MOVQ terms_base+64(FP), R8 // the row's first term
	MOVQ n_base+88(FP), R12
	MOVQ n_len+96(FP), R13     // rows left
	MOVBQZX zero+112(FP), R11

row:
	TESTQ R13, R13
	JZ    done
	MOVQ  (R12), R10 // the row's terms
	XORQ  R14, R14   // first column of the strip

strip32:
	MOVQ R15, BX
	SUBQ R14, BX
	CMPQ BX, $32
	JL   strip8
	LEAQ (SI)(R14*4), R9 // &src[P]
	TESTQ R11, R11
	JZ   load32
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	JMP  sum32

load32:
	VMOVUPS (DI)(R14*4), Y0
	VMOVUPS 32(DI)(R14*4), Y1
	VMOVUPS 64(DI)(R14*4), Y2
	VMOVUPS 96(DI)(R14*4), Y3

sum32:
	MOVQ  R8, CX
	MOVQ  R10, BX
	TESTQ BX, BX
	JZ    store32

term32:
	MOVLQSX      (CX), AX
	VBROADCASTSS 4(CX), Y4
	VMULPS       (R9)(AX*4), Y4, Y5
	VMULPS       32(R9)(AX*4), Y4, Y6
	VMULPS       64(R9)(AX*4), Y4, Y7
	VMULPS       96(R9)(AX*4), Y4, Y8
	VADDPS       Y5, Y0, Y0
	VADDPS       Y6, Y1, Y1
	VADDPS       Y7, Y2, Y2
	VADDPS       Y8, Y3, Y3
	ADDQ         $8, CX
	DECQ         BX
	JNZ          term32

store32:
	VMOVUPS Y0, (DI)(R14*4)
	VMOVUPS Y1, 32(DI)(R14*4)
	VMOVUPS Y2, 64(DI)(R14*4)
	VMOVUPS Y3, 96(DI)(R14*4)
	ADDQ    $32, R14
	JMP     strip32

strip8:
	CMPQ R14, R15
	JGE  nextrow
	LEAQ (SI)(R14*4), R9
	TESTQ R11, R11
	JZ   load8
	VXORPS Y0, Y0, Y0
	JMP  sum8

load8:
	VMOVUPS (DI)(R14*4), Y0

sum8:
	MOVQ  R8, CX
	MOVQ  R10, BX
	TESTQ BX, BX
	JZ    store8

term8:
	MOVLQSX      (CX), AX
	VBROADCASTSS 4(CX), Y4
	VMULPS       (R9)(AX*4), Y4, Y5
	VADDPS       Y5, Y0, Y0
	ADDQ         $8, CX
	DECQ         BX
	JNZ          term8

store8:
	VMOVUPS Y0, (DI)(R14*4)
	ADDQ    $8, R14
	JMP     strip8

nextrow:
	SHLQ $3, R10 // 8 bytes a term
	ADDQ R10, R8 // the next row's terms
	ADDQ DX, DI
	ADDQ $8, R12
	DECQ R13
	JMP  row

done:
	VZEROUPPER
	RET
