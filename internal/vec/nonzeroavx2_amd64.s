//go:build amd64 && !purego

#include "textflag.h"

// The NonzeroTerms kernels at AVX2. Without AVX-512's compress, the
// terms of a group of entries (four Term32s or two Terms a register) are
// moved to the front of the register by VPERMD with indices from a
// table, by the mask of the group's non-zero entries, and the register
// is stored whole at term R8; R8 then advances by the mask's count. The
// terms past the count are overwritten next or lie within the entries
// already read, so nothing past dst[len(x)-1] is written.

// nzPerm32<>+32*m holds the VPERMD indices that move the Term32s of the
// set bits of m (four terms, two dwords each) to the front, in order.
DATA nzPerm32<>+0(SB)/8, $0x0
DATA nzPerm32<>+8(SB)/8, $0x0
DATA nzPerm32<>+16(SB)/8, $0x0
DATA nzPerm32<>+24(SB)/8, $0x0
DATA nzPerm32<>+32(SB)/8, $0x100000000
DATA nzPerm32<>+40(SB)/8, $0x0
DATA nzPerm32<>+48(SB)/8, $0x0
DATA nzPerm32<>+56(SB)/8, $0x0
DATA nzPerm32<>+64(SB)/8, $0x300000002
DATA nzPerm32<>+72(SB)/8, $0x0
DATA nzPerm32<>+80(SB)/8, $0x0
DATA nzPerm32<>+88(SB)/8, $0x0
DATA nzPerm32<>+96(SB)/8, $0x100000000
DATA nzPerm32<>+104(SB)/8, $0x300000002
DATA nzPerm32<>+112(SB)/8, $0x0
DATA nzPerm32<>+120(SB)/8, $0x0
DATA nzPerm32<>+128(SB)/8, $0x500000004
DATA nzPerm32<>+136(SB)/8, $0x0
DATA nzPerm32<>+144(SB)/8, $0x0
DATA nzPerm32<>+152(SB)/8, $0x0
DATA nzPerm32<>+160(SB)/8, $0x100000000
DATA nzPerm32<>+168(SB)/8, $0x500000004
DATA nzPerm32<>+176(SB)/8, $0x0
DATA nzPerm32<>+184(SB)/8, $0x0
DATA nzPerm32<>+192(SB)/8, $0x300000002
DATA nzPerm32<>+200(SB)/8, $0x500000004
DATA nzPerm32<>+208(SB)/8, $0x0
DATA nzPerm32<>+216(SB)/8, $0x0
DATA nzPerm32<>+224(SB)/8, $0x100000000
DATA nzPerm32<>+232(SB)/8, $0x300000002
DATA nzPerm32<>+240(SB)/8, $0x500000004
DATA nzPerm32<>+248(SB)/8, $0x0
DATA nzPerm32<>+256(SB)/8, $0x700000006
DATA nzPerm32<>+264(SB)/8, $0x0
DATA nzPerm32<>+272(SB)/8, $0x0
DATA nzPerm32<>+280(SB)/8, $0x0
DATA nzPerm32<>+288(SB)/8, $0x100000000
DATA nzPerm32<>+296(SB)/8, $0x700000006
DATA nzPerm32<>+304(SB)/8, $0x0
DATA nzPerm32<>+312(SB)/8, $0x0
DATA nzPerm32<>+320(SB)/8, $0x300000002
DATA nzPerm32<>+328(SB)/8, $0x700000006
DATA nzPerm32<>+336(SB)/8, $0x0
DATA nzPerm32<>+344(SB)/8, $0x0
DATA nzPerm32<>+352(SB)/8, $0x100000000
DATA nzPerm32<>+360(SB)/8, $0x300000002
DATA nzPerm32<>+368(SB)/8, $0x700000006
DATA nzPerm32<>+376(SB)/8, $0x0
DATA nzPerm32<>+384(SB)/8, $0x500000004
DATA nzPerm32<>+392(SB)/8, $0x700000006
DATA nzPerm32<>+400(SB)/8, $0x0
DATA nzPerm32<>+408(SB)/8, $0x0
DATA nzPerm32<>+416(SB)/8, $0x100000000
DATA nzPerm32<>+424(SB)/8, $0x500000004
DATA nzPerm32<>+432(SB)/8, $0x700000006
DATA nzPerm32<>+440(SB)/8, $0x0
DATA nzPerm32<>+448(SB)/8, $0x300000002
DATA nzPerm32<>+456(SB)/8, $0x500000004
DATA nzPerm32<>+464(SB)/8, $0x700000006
DATA nzPerm32<>+472(SB)/8, $0x0
DATA nzPerm32<>+480(SB)/8, $0x100000000
DATA nzPerm32<>+488(SB)/8, $0x300000002
DATA nzPerm32<>+496(SB)/8, $0x500000004
DATA nzPerm32<>+504(SB)/8, $0x700000006
GLOBL nzPerm32<>(SB), RODATA|NOPTR, $512

// nzPerm64<>+32*m holds the VPERMD indices that move the Terms of the
// set bits of m (two terms, four dwords each) to the front.
DATA nzPerm64<>+0(SB)/8, $0x0
DATA nzPerm64<>+8(SB)/8, $0x0
DATA nzPerm64<>+16(SB)/8, $0x0
DATA nzPerm64<>+24(SB)/8, $0x0
DATA nzPerm64<>+32(SB)/8, $0x100000000
DATA nzPerm64<>+40(SB)/8, $0x300000002
DATA nzPerm64<>+48(SB)/8, $0x0
DATA nzPerm64<>+56(SB)/8, $0x0
DATA nzPerm64<>+64(SB)/8, $0x500000004
DATA nzPerm64<>+72(SB)/8, $0x700000006
DATA nzPerm64<>+80(SB)/8, $0x0
DATA nzPerm64<>+88(SB)/8, $0x0
DATA nzPerm64<>+96(SB)/8, $0x100000000
DATA nzPerm64<>+104(SB)/8, $0x300000002
DATA nzPerm64<>+112(SB)/8, $0x500000004
DATA nzPerm64<>+120(SB)/8, $0x700000006
GLOBL nzPerm64<>(SB), RODATA|NOPTR, $128

// NZ32 stores the terms of REG (four Term32s) under the four bits of AX
// at term R8 of DI and advances R8 by their number.
#define NZ32(REG) \
	POPCNTL AX, DX \
	SHLQ    $5, AX \
	VMOVDQU (R9)(AX*1), Y11 \
	VPERMD  REG, Y11, Y12 \
	VMOVDQU Y12, (DI)(R8*8) \
	ADDQ    DX, R8

// func nonzeroTerms32AVX2(dst *Term32, x []float32, offs *[8]int32, step int) int
//
// len(x) is a multiple of 8. Y1 holds the eight lanes' Offs, Y2 the
// step between groups of eight, Y0 zero, R9 the table.
TEXT ·nonzeroTerms32AVX2(SB), NOSPLIT, $0-56
	MOVQ         dst+0(FP), DI
	MOVQ         x_base+8(FP), SI
	MOVQ         x_len+16(FP), CX
	MOVQ         offs+32(FP), AX
	VMOVDQU      (AX), Y1
	MOVQ         step+40(FP), X2
	VPBROADCASTD X2, Y2
	VXORPS       Y0, Y0, Y0
	LEAQ         nzPerm32<>(SB), R9
	XORQ         R8, R8

loop32:
	SUBQ       $8, CX
	JL         done32
	VMOVUPS    (SI), Y5
	VCMPPS     $4, Y0, Y5, Y6 // x != 0, true for NaN
	VMOVMSKPS  Y6, BX
	VUNPCKLPS  Y5, Y1, Y7 // Off 0, A 0, Off 1, A 1 | the same of 4, 5
	VUNPCKHPS  Y5, Y1, Y8 // 2, 3 | 6, 7
	VPERM2F128 $0x20, Y8, Y7, Y9 // terms 0-3
	VPERM2F128 $0x31, Y8, Y7, Y10 // terms 4-7
	MOVL       BX, AX
	ANDL       $15, AX
	NZ32(Y9)
	MOVL       BX, AX
	SHRL       $4, AX
	NZ32(Y10)
	VPADDD     Y2, Y1, Y1
	ADDQ       $32, SI
	JMP        loop32

done32:
	MOVQ R8, ret+48(FP)
	VZEROUPPER
	RET

// NZ64 stores the terms of REG (two Terms) under the two bits of AX at
// term R8 of DI and advances R8 by their number.
#define NZ64(REG) \
	POPCNTL AX, DX \
	SHLQ    $5, AX \
	VMOVDQU (R9)(AX*1), Y11 \
	VPERMD  REG, Y11, Y12 \
	MOVQ    R8, R10 \
	SHLQ    $4, R10 \
	VMOVDQU Y12, (DI)(R10*1) \
	ADDQ    DX, R8

// func nonzeroTermsAVX2(dst *Term, x []float64, offs *[4]int, step int) int
//
// len(x) is a multiple of 4. Y1 holds the four lanes' Offs, Y2 the step
// between groups of four, Y0 zero, R9 the table.
TEXT ·nonzeroTermsAVX2(SB), NOSPLIT, $0-56
	MOVQ         dst+0(FP), DI
	MOVQ         x_base+8(FP), SI
	MOVQ         x_len+16(FP), CX
	MOVQ         offs+32(FP), AX
	VMOVDQU      (AX), Y1
	MOVQ         step+40(FP), X2
	VPBROADCASTQ X2, Y2
	VXORPD       Y0, Y0, Y0
	LEAQ         nzPerm64<>(SB), R9
	XORQ         R8, R8

loop64:
	SUBQ       $4, CX
	JL         done64
	VMOVUPD    (SI), Y5
	VCMPPD     $4, Y0, Y5, Y6 // x != 0, true for NaN
	VMOVMSKPD  Y6, BX
	VUNPCKLPD  Y5, Y1, Y7 // Off 0, A 0 | Off 2, A 2
	VUNPCKHPD  Y5, Y1, Y8 // 1 | 3
	VPERM2F128 $0x20, Y8, Y7, Y9 // terms 0, 1
	VPERM2F128 $0x31, Y8, Y7, Y10 // terms 2, 3
	MOVL       BX, AX
	ANDL       $3, AX
	NZ64(Y9)
	MOVL       BX, AX
	SHRL       $2, AX
	NZ64(Y10)
	VPADDQ     Y2, Y1, Y1
	ADDQ       $32, SI
	JMP        loop64

done64:
	MOVQ R8, ret+48(FP)
	VZEROUPPER
	RET

// func hasZeroAVX2(x []float64) bool
//
// len(x) is a multiple of 4.
TEXT ·hasZeroAVX2(SB), NOSPLIT, $0-25
	MOVQ   x_base+0(FP), SI
	MOVQ   x_len+8(FP), CX
	VXORPD Y0, Y0, Y0

hz16:
	CMPQ   CX, $16
	JL     hz4
	VCMPPD $0, (SI), Y0, Y1 // == 0 (either zero; NaN is not)
	VCMPPD $0, 32(SI), Y0, Y2
	VCMPPD $0, 64(SI), Y0, Y3
	VCMPPD $0, 96(SI), Y0, Y4
	VORPD  Y1, Y2, Y1
	VORPD  Y3, Y4, Y3
	VORPD  Y1, Y3, Y1
	VPTEST Y1, Y1
	JNZ    hzyes
	ADDQ   $128, SI
	SUBQ   $16, CX
	JMP    hz16

hz4:
	TESTQ  CX, CX
	JZ     hzno
	VCMPPD $0, (SI), Y0, Y1
	VPTEST Y1, Y1
	JNZ    hzyes
	ADDQ   $32, SI
	SUBQ   $4, CX
	JMP    hz4

hzno:
	VZEROUPPER
	MOVB $0, ret+24(FP)
	RET

hzyes:
	VZEROUPPER
	MOVB $1, ret+24(FP)
	RET
