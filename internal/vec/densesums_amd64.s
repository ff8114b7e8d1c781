//go:build amd64 && !purego

#include "textflag.h"
#include "densesums_amd64.h"
#include "strip_amd64.h"

// DROW multiplies the strip of the source row (Z16-Z19) by the
// coefficient C (the coefficient first, as in addScaledNAVX512) into
// Z24-Z27 and adds the products to the row's accumulators A0-A3
// (acc+product), each operation rounded.
#define DROW(C, A0, A1, A2, A3) \
	VMULPD Z16, C, Z24 \
	VMULPD Z17, C, Z25 \
	VMULPD Z18, C, Z26 \
	VMULPD Z19, C, Z27 \
	VADDPD Z24, A0, A0 \
	VADDPD Z25, A1, A1 \
	VADDPD Z26, A2, A2 \
	VADDPD Z27, A3, A3

// func denseSumsAVX512(dst []float64, stride, cols int, src []float64, srcStride int, a []float64, rs, ts, rows, terms int, zero bool)
TEXT ·denseSumsAVX512(SB), NOSPLIT, $0-129
	DENSESETUP

strip: // columns P .. P+31 of every row; masks K1-K4 have the lanes of each register
	MOVQ cols+32(FP), BX
	SUBQ P, BX // columns left
	STRIPMASKS

	DENSESTRIP

group: // rows r .. r+3: their coefficients at PC, PC+rs, PC+2rs, PC+3rs
	TESTQ LEFT, LEFT
	JZ    next
	CMPB  zero+128(FP), $0
	JEQ   load4
	ZERO16
	JMP   sum4

load4:
	LEAQ      (STR)(STR*2), AX
	LOAD16(PDST, STR, AX)

sum4:
	MOVQ PG, PC
	MOVQ src_base+40(FP), PS
	LEAQ (PS)(P*8), PS
	MOVQ terms+120(FP), BX
	TESTQ BX, BX
	JZ    store4

loop4: // term t: one source row for the four rows
	VMOVUPD.Z    (PS), K1, Z16
	VMOVUPD.Z    64(PS), K2, Z17
	VMOVUPD.Z    128(PS), K3, Z18
	VMOVUPD.Z    192(PS), K4, Z19
	VBROADCASTSD (PC), Z20
	VBROADCASTSD (PC)(RS*1), Z21
	VBROADCASTSD (PC)(RS*2), Z22
	VBROADCASTSD (PC)(RS3*1), Z23
	DROW(Z20, Z0, Z1, Z2, Z3)
	DROW(Z21, Z4, Z5, Z6, Z7)
	DROW(Z22, Z8, Z9, Z10, Z11)
	DROW(Z23, Z12, Z13, Z14, Z15)
	ADDQ SS, PS
	ADDQ TS, PC
	DECQ BX
	JNZ  loop4

store4:
	LEAQ    (STR)(STR*2), AX
	STORE16(PDST, STR, AX)
	LEAQ (PDST)(STR*4), PDST
	LEAQ (PG)(RS*4), PG
	DECQ LEFT
	JMP  group

next:
	ADDQ $32, P
	CMPQ P, cols+32(FP)
	JL   strip
	VZEROUPPER
	RET
