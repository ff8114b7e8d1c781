//go:build amd64 && !purego

#include "textflag.h"
#include "densesums_amd64.h"
#include "strip_amd64.h"

// DROW2 multiplies the strip of the source row (Y8, Y9) by the
// coefficient C (the coefficient first, as in addScaledNAVX2) into Y14
// and Y15 and adds the products to the row's accumulators A0 and A1
// (acc+product), each operation rounded.
#define DROW2(C, A0, A1) \
	VMULPD Y8, C, Y14 \
	VMULPD Y9, C, Y15 \
	VADDPD Y14, A0, A0 \
	VADDPD Y15, A1, A1

// func denseSumsAVX2(dst []float64, stride, cols int, src []float64, srcStride int, a []float64, rs, ts, rows, terms int, zero bool)
//
// cols is a multiple of 8 and rows of 4, both positive; terms is positive.
// The columns are walked in strips of 8 (two Y registers a row) and, in
// each strip, the rows four at a time, their sums in eight registers,
// each source row's strip loaded once for the four.
TEXT ·denseSumsAVX2(SB), NOSPLIT, $0-129
	DENSESETUP

strip: // columns P .. P+7 of every row
	DENSESTRIP

group: // rows r .. r+3: their coefficients at PC, PC+rs, PC+2rs, PC+3rs
	TESTQ LEFT, LEFT
	JZ    next
	LEAQ  (STR)(STR*2), AX
	CMPB  zero+128(FP), $0
	JEQ   load4
	ZERO8Y
	JMP   sum4

load4:
	LOAD8Y(PDST, STR, AX)

sum4:
	MOVQ PG, PC
	MOVQ src_base+40(FP), PS
	LEAQ (PS)(P*8), PS
	MOVQ terms+120(FP), BX

loop4: // term t: one source row for the four rows
	VMOVUPD      (PS), Y8
	VMOVUPD      32(PS), Y9
	VBROADCASTSD (PC), Y10
	VBROADCASTSD (PC)(RS*1), Y11
	VBROADCASTSD (PC)(RS*2), Y12
	VBROADCASTSD (PC)(RS3*1), Y13
	DROW2(Y10, Y0, Y1)
	DROW2(Y11, Y2, Y3)
	DROW2(Y12, Y4, Y5)
	DROW2(Y13, Y6, Y7)
	ADDQ SS, PS
	ADDQ TS, PC
	DECQ BX
	JNZ  loop4

	STORE8Y(PDST, STR, AX)
	LEAQ (PDST)(STR*4), PDST
	LEAQ (PG)(RS*4), PG
	DECQ LEFT
	JMP  group

next:
	ADDQ $8, P
	CMPQ P, cols+32(FP)
	JL   strip
	VZEROUPPER
	RET
