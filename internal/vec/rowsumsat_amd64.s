//go:build amd64 && !purego

#include "textflag.h"
#include "rowsums_amd64.h"
#include "strip_amd64.h"

// rowSumsAtAVX512 is rowSumsAVX512 with DX walking off (the offsets of
// the rows) instead of the stride.

// func rowSumsAtAVX512(dst []float64, off []int, cols int, src []float64, terms []Term, n []int, zero bool)
TEXT ·rowSumsAtAVX512(SB), NOSPLIT, $0-129
	XORQ P, P

strip: // columns P .. P+31 of every row; masks K1-K4 have the lanes of each register
	MOVQ cols+48(FP), BX
	SUBQ P, BX // columns left
	STRIPMASKS

	MOVQ src_base+56(FP), PSRC
	LEAQ (PSRC)(P*8), PSRC
	MOVQ dst_base+0(FP), PDST
	LEAQ (PDST)(P*8), PDST
	MOVQ terms_base+80(FP), R8
	MOVQ n_base+104(FP), NP
	MOVQ n_len+112(FP), LEFT
	MOVQ off_base+24(FP), DX

group: // four rows, their terms at R8-R11
	CMPQ    LEFT, $4
	JL      rest
	MOVQ    0(NP), BX
	SHLQ    $4, BX
	LEAQ    (R8)(BX*1), R9
	MOVQ    8(NP), BX
	SHLQ    $4, BX
	LEAQ    (R9)(BX*1), R10
	MOVQ    16(NP), BX
	SHLQ    $4, BX
	LEAQ    (R10)(BX*1), R11
	MOVQ    0(NP), CX // CX = the fewest terms of the four rows
	MOVQ    8(NP), BX
	CMPQ    BX, CX
	CMOVQLT BX, CX
	MOVQ    16(NP), BX
	CMPQ    BX, CX
	CMOVQLT BX, CX
	MOVQ    24(NP), BX
	CMPQ    BX, CX
	CMOVQLT BX, CX

	CMPB    zero+128(FP), $0
	JEQ     load4
	ZERO16
	JMP     sum4

load4:
	MOVQ 0(DX), BX
	VMOVUPD.Z (PDST)(BX*8), K1, Z0
	VMOVUPD.Z 64(PDST)(BX*8), K2, Z1
	VMOVUPD.Z 128(PDST)(BX*8), K3, Z2
	VMOVUPD.Z 192(PDST)(BX*8), K4, Z3
	MOVQ 8(DX), BX
	VMOVUPD.Z (PDST)(BX*8), K1, Z4
	VMOVUPD.Z 64(PDST)(BX*8), K2, Z5
	VMOVUPD.Z 128(PDST)(BX*8), K3, Z6
	VMOVUPD.Z 192(PDST)(BX*8), K4, Z7
	MOVQ 16(DX), BX
	VMOVUPD.Z (PDST)(BX*8), K1, Z8
	VMOVUPD.Z 64(PDST)(BX*8), K2, Z9
	VMOVUPD.Z 128(PDST)(BX*8), K3, Z10
	VMOVUPD.Z 192(PDST)(BX*8), K4, Z11
	MOVQ 24(DX), BX
	VMOVUPD.Z (PDST)(BX*8), K1, Z12
	VMOVUPD.Z 64(PDST)(BX*8), K2, Z13
	VMOVUPD.Z 128(PDST)(BX*8), K3, Z14
	VMOVUPD.Z 192(PDST)(BX*8), K4, Z15

sum4:
	MOVQ  CX, BX
	TESTQ BX, BX
	JZ    tail0

loop4: // one term of each row; the rows' sums are independent
	TERM4(R8, Z0, Z1, Z2, Z3)
	TERM4(R9, Z4, Z5, Z6, Z7)
	TERM4(R10, Z8, Z9, Z10, Z11)
	TERM4(R11, Z12, Z13, Z14, Z15)
	DECQ BX
	JNZ  loop4

tail0: // row 0's terms beyond the fewest
	MOVQ 0(NP), BX
	SUBQ CX, BX
	JZ   tail1

loop0:
	TERM4(R8, Z0, Z1, Z2, Z3)
	DECQ BX
	JNZ  loop0

tail1: // row 1's terms beyond the fewest
	MOVQ 8(NP), BX
	SUBQ CX, BX
	JZ   tail2

loop1:
	TERM4(R9, Z4, Z5, Z6, Z7)
	DECQ BX
	JNZ  loop1

tail2: // row 2's terms beyond the fewest
	MOVQ 16(NP), BX
	SUBQ CX, BX
	JZ   tail3

loop2:
	TERM4(R10, Z8, Z9, Z10, Z11)
	DECQ BX
	JNZ  loop2

tail3: // row 3's terms beyond the fewest
	MOVQ 24(NP), BX
	SUBQ CX, BX
	JZ   store4

loop3:
	TERM4(R11, Z12, Z13, Z14, Z15)
	DECQ BX
	JNZ  loop3

store4:
	MOVQ 0(DX), BX
	VMOVUPD Z0, K1, (PDST)(BX*8)
	VMOVUPD Z1, K2, 64(PDST)(BX*8)
	VMOVUPD Z2, K3, 128(PDST)(BX*8)
	VMOVUPD Z3, K4, 192(PDST)(BX*8)
	MOVQ 8(DX), BX
	VMOVUPD Z4, K1, (PDST)(BX*8)
	VMOVUPD Z5, K2, 64(PDST)(BX*8)
	VMOVUPD Z6, K3, 128(PDST)(BX*8)
	VMOVUPD Z7, K4, 192(PDST)(BX*8)
	MOVQ 16(DX), BX
	VMOVUPD Z8, K1, (PDST)(BX*8)
	VMOVUPD Z9, K2, 64(PDST)(BX*8)
	VMOVUPD Z10, K3, 128(PDST)(BX*8)
	VMOVUPD Z11, K4, 192(PDST)(BX*8)
	MOVQ 24(DX), BX
	VMOVUPD Z12, K1, (PDST)(BX*8)
	VMOVUPD Z13, K2, 64(PDST)(BX*8)
	VMOVUPD Z14, K3, 128(PDST)(BX*8)
	VMOVUPD Z15, K4, 192(PDST)(BX*8)
	MOVQ R11, R8 // R11 has passed row 3's terms: the next group's
	ADDQ $32, DX
	ADDQ $32, NP
	SUBQ $4, LEFT
	JMP  group

rest: // the last one to three rows, one at a time
	TESTQ LEFT, LEFT
	JZ    next
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	CMPB  zero+128(FP), $0
	JNE   sum1
	MOVQ 0(DX), BX
	VMOVUPD.Z (PDST)(BX*8), K1, Z0
	VMOVUPD.Z 64(PDST)(BX*8), K2, Z1
	VMOVUPD.Z 128(PDST)(BX*8), K3, Z2
	VMOVUPD.Z 192(PDST)(BX*8), K4, Z3

sum1:
	MOVQ  0(NP), BX
	TESTQ BX, BX
	JZ    store1

loop:
	TERM4(R8, Z0, Z1, Z2, Z3)
	DECQ BX
	JNZ  loop

store1:
	MOVQ 0(DX), BX
	VMOVUPD Z0, K1, (PDST)(BX*8)
	VMOVUPD Z1, K2, 64(PDST)(BX*8)
	VMOVUPD Z2, K3, 128(PDST)(BX*8)
	VMOVUPD Z3, K4, 192(PDST)(BX*8)
	ADDQ $8, DX
	ADDQ $8, NP
	DECQ LEFT
	JMP  rest

next:
	ADDQ $32, P
	CMPQ P, cols+48(FP)
	JL   strip
	VZEROUPPER
	RET
