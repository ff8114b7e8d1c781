//go:build amd64 && !purego

#include "textflag.h"
#include "rowsums32_amd64.h"
#include "strip_amd64.h"

// func rowSums32AVX512(dst []float32, stride, cols int, src []float32, terms []Term32, n []int, zero bool)
TEXT ·rowSums32AVX512(SB), NOSPLIT, $0-113
	MOVQ stride+24(FP), STR
	SHLQ $2, STR
	XORQ P, P

strip: // columns P .. P+63 of every row; masks K1-K4 have the lanes of each register
	MOVQ cols+32(FP), BX
	SUBQ P, BX // columns left
	STRIPMASKS32

	MOVQ src_base+40(FP), PSRC
	LEAQ (PSRC)(P*4), PSRC
	MOVQ dst_base+0(FP), PDST
	LEAQ (PDST)(P*4), PDST
	MOVQ terms_base+64(FP), R8
	MOVQ n_base+88(FP), NP
	MOVQ n_len+96(FP), LEFT

group: // four rows, their terms at R8-R11
	CMPQ    LEFT, $4
	JL      rest
	MOVQ    0(NP), BX
	SHLQ    $3, BX // 8 bytes a term
	LEAQ    (R8)(BX*1), R9
	MOVQ    8(NP), BX
	SHLQ    $3, BX // 8 bytes a term
	LEAQ    (R9)(BX*1), R10
	MOVQ    16(NP), BX
	SHLQ    $3, BX // 8 bytes a term
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

	LEAQ    (STR)(STR*2), R15
	CMPB    zero+112(FP), $0
	JEQ     load4
	ZERO16
	JMP     sum4

load4:
	VMOVUPS.Z (PDST), K1, Z0
	VMOVUPS.Z 64(PDST), K2, Z1
	VMOVUPS.Z 128(PDST), K3, Z2
	VMOVUPS.Z 192(PDST), K4, Z3
	VMOVUPS.Z (PDST)(STR*1), K1, Z4
	VMOVUPS.Z 64(PDST)(STR*1), K2, Z5
	VMOVUPS.Z 128(PDST)(STR*1), K3, Z6
	VMOVUPS.Z 192(PDST)(STR*1), K4, Z7
	VMOVUPS.Z (PDST)(STR*2), K1, Z8
	VMOVUPS.Z 64(PDST)(STR*2), K2, Z9
	VMOVUPS.Z 128(PDST)(STR*2), K3, Z10
	VMOVUPS.Z 192(PDST)(STR*2), K4, Z11
	VMOVUPS.Z (PDST)(R15*1), K1, Z12
	VMOVUPS.Z 64(PDST)(R15*1), K2, Z13
	VMOVUPS.Z 128(PDST)(R15*1), K3, Z14
	VMOVUPS.Z 192(PDST)(R15*1), K4, Z15

sum4:
	MOVQ  CX, BX
	TESTQ BX, BX
	JZ    tail0

loop4: // one term of each row; the rows' sums are independent
	TERM4S(R8, Z0, Z1, Z2, Z3)
	TERM4S(R9, Z4, Z5, Z6, Z7)
	TERM4S(R10, Z8, Z9, Z10, Z11)
	TERM4S(R11, Z12, Z13, Z14, Z15)
	DECQ BX
	JNZ  loop4

tail0: // row 0's terms beyond the fewest
	MOVQ 0(NP), BX
	SUBQ CX, BX
	JZ   tail1

loop0:
	TERM4S(R8, Z0, Z1, Z2, Z3)
	DECQ BX
	JNZ  loop0

tail1: // row 1's terms beyond the fewest
	MOVQ 8(NP), BX
	SUBQ CX, BX
	JZ   tail2

loop1:
	TERM4S(R9, Z4, Z5, Z6, Z7)
	DECQ BX
	JNZ  loop1

tail2: // row 2's terms beyond the fewest
	MOVQ 16(NP), BX
	SUBQ CX, BX
	JZ   tail3

loop2:
	TERM4S(R10, Z8, Z9, Z10, Z11)
	DECQ BX
	JNZ  loop2

tail3: // row 3's terms beyond the fewest
	MOVQ 24(NP), BX
	SUBQ CX, BX
	JZ   store4

loop3:
	TERM4S(R11, Z12, Z13, Z14, Z15)
	DECQ BX
	JNZ  loop3

store4:
	VMOVUPS Z0, K1, (PDST)
	VMOVUPS Z1, K2, 64(PDST)
	VMOVUPS Z2, K3, 128(PDST)
	VMOVUPS Z3, K4, 192(PDST)
	VMOVUPS Z4, K1, (PDST)(STR*1)
	VMOVUPS Z5, K2, 64(PDST)(STR*1)
	VMOVUPS Z6, K3, 128(PDST)(STR*1)
	VMOVUPS Z7, K4, 192(PDST)(STR*1)
	VMOVUPS Z8, K1, (PDST)(STR*2)
	VMOVUPS Z9, K2, 64(PDST)(STR*2)
	VMOVUPS Z10, K3, 128(PDST)(STR*2)
	VMOVUPS Z11, K4, 192(PDST)(STR*2)
	VMOVUPS Z12, K1, (PDST)(R15*1)
	VMOVUPS Z13, K2, 64(PDST)(R15*1)
	VMOVUPS Z14, K3, 128(PDST)(R15*1)
	VMOVUPS Z15, K4, 192(PDST)(R15*1)
	MOVQ R11, R8 // R11 has passed row 3's terms: the next group's
	LEAQ (PDST)(STR*4), PDST
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
	CMPB  zero+112(FP), $0
	JNE   sum1
	VMOVUPS.Z (PDST), K1, Z0
	VMOVUPS.Z 64(PDST), K2, Z1
	VMOVUPS.Z 128(PDST), K3, Z2
	VMOVUPS.Z 192(PDST), K4, Z3

sum1:
	MOVQ  0(NP), BX
	TESTQ BX, BX
	JZ    store1

loop:
	TERM4S(R8, Z0, Z1, Z2, Z3)
	DECQ BX
	JNZ  loop

store1:
	VMOVUPS Z0, K1, (PDST)
	VMOVUPS Z1, K2, 64(PDST)
	VMOVUPS Z2, K3, 128(PDST)
	VMOVUPS Z3, K4, 192(PDST)
	ADDQ STR, PDST
	ADDQ $8, NP
	DECQ LEFT
	JMP  rest

next:
	ADDQ $64, P
	CMPQ P, cols+32(FP)
	JL   strip
	VZEROUPPER
	RET

// func rowSums16AVX512(dst []float32, stride, cols int, src []float32, terms []Term32, n []int, zero bool)
TEXT ·rowSums16AVX512(SB), NOSPLIT, $0-113
	MOVQ stride+24(FP), STR
	SHLQ $2, STR
	XORQ P, P

strip: // columns P .. P+15 of every row; mask K1 has their lanes
	MOVQ cols+32(FP), BX
	SUBQ P, BX // columns left
	LANEMASK(0, 16, K1)

	MOVQ src_base+40(FP), PSRC
	LEAQ (PSRC)(P*4), PSRC
	MOVQ dst_base+0(FP), PDST
	LEAQ (PDST)(P*4), PDST
	MOVQ terms_base+64(FP), R8
	MOVQ n_base+88(FP), NP
	MOVQ n_len+96(FP), LEFT

group: // four rows, their terms at R8-R11
	CMPQ    LEFT, $4
	JL      rest
	MOVQ    0(NP), BX
	SHLQ    $3, BX // 8 bytes a term
	LEAQ    (R8)(BX*1), R9
	MOVQ    8(NP), BX
	SHLQ    $3, BX // 8 bytes a term
	LEAQ    (R9)(BX*1), R10
	MOVQ    16(NP), BX
	SHLQ    $3, BX // 8 bytes a term
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

	LEAQ    (STR)(STR*2), R15
	CMPB    zero+112(FP), $0
	JEQ     load4
	VPXORQ  Z0, Z0, Z0
	VPXORQ  Z1, Z1, Z1
	VPXORQ  Z2, Z2, Z2
	VPXORQ  Z3, Z3, Z3
	JMP     sum4

load4:
	VMOVUPS.Z (PDST), K1, Z0
	VMOVUPS.Z (PDST)(STR*1), K1, Z1
	VMOVUPS.Z (PDST)(STR*2), K1, Z2
	VMOVUPS.Z (PDST)(R15*1), K1, Z3

sum4:
	MOVQ  CX, BX
	TESTQ BX, BX
	JZ    tail0

loop4: // one term of each row; the rows' sums are independent
	TERM1S(R8, Z0)
	TERM1S(R9, Z1)
	TERM1S(R10, Z2)
	TERM1S(R11, Z3)
	DECQ BX
	JNZ  loop4

tail0: // row 0's terms beyond the fewest
	MOVQ 0(NP), BX
	SUBQ CX, BX
	JZ   tail1

loop0:
	TERM1S(R8, Z0)
	DECQ BX
	JNZ  loop0

tail1: // row 1's terms beyond the fewest
	MOVQ 8(NP), BX
	SUBQ CX, BX
	JZ   tail2

loop1:
	TERM1S(R9, Z1)
	DECQ BX
	JNZ  loop1

tail2: // row 2's terms beyond the fewest
	MOVQ 16(NP), BX
	SUBQ CX, BX
	JZ   tail3

loop2:
	TERM1S(R10, Z2)
	DECQ BX
	JNZ  loop2

tail3: // row 3's terms beyond the fewest
	MOVQ 24(NP), BX
	SUBQ CX, BX
	JZ   store4

loop3:
	TERM1S(R11, Z3)
	DECQ BX
	JNZ  loop3

store4:
	VMOVUPS Z0, K1, (PDST)
	VMOVUPS Z1, K1, (PDST)(STR*1)
	VMOVUPS Z2, K1, (PDST)(STR*2)
	VMOVUPS Z3, K1, (PDST)(R15*1)
	MOVQ R11, R8 // R11 has passed row 3's terms: the next group's
	LEAQ (PDST)(STR*4), PDST
	ADDQ $32, NP
	SUBQ $4, LEFT
	JMP  group

rest: // the last one to three rows, one at a time
	TESTQ LEFT, LEFT
	JZ    next
	VPXORQ Z0, Z0, Z0
	CMPB  zero+112(FP), $0
	JNE   sum1
	VMOVUPS.Z (PDST), K1, Z0

sum1:
	MOVQ  0(NP), BX
	TESTQ BX, BX
	JZ    store1

loop:
	TERM1S(R8, Z0)
	DECQ BX
	JNZ  loop

store1:
	VMOVUPS Z0, K1, (PDST)
	ADDQ STR, PDST
	ADDQ $8, NP
	DECQ LEFT
	JMP  rest

next:
	ADDQ $16, P
	CMPQ P, cols+32(FP)
	JL   strip
	VZEROUPPER
	RET
