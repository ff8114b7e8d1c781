//go:build amd64 && !purego

#include "textflag.h"

// The lanes of the terms: Off then A, four terms a register.
DATA ilvLo<>+0(SB)/8, $0
DATA ilvLo<>+8(SB)/8, $8
DATA ilvLo<>+16(SB)/8, $1
DATA ilvLo<>+24(SB)/8, $9
DATA ilvLo<>+32(SB)/8, $2
DATA ilvLo<>+40(SB)/8, $10
DATA ilvLo<>+48(SB)/8, $3
DATA ilvLo<>+56(SB)/8, $11
GLOBL ilvLo<>(SB), RODATA|NOPTR, $64

DATA ilvHi<>+0(SB)/8, $4
DATA ilvHi<>+8(SB)/8, $12
DATA ilvHi<>+16(SB)/8, $5
DATA ilvHi<>+24(SB)/8, $13
DATA ilvHi<>+32(SB)/8, $6
DATA ilvHi<>+40(SB)/8, $14
DATA ilvHi<>+48(SB)/8, $7
DATA ilvHi<>+56(SB)/8, $15
GLOBL ilvHi<>(SB), RODATA|NOPTR, $64

// NZ8 writes the terms of the lanes of Z5 under K1 (the non-zero ones)
// at term R8 of DI, eight terms whatever their number (the ones past it
// are overwritten next or are slack), and advances R8 by their number.
#define NZ8 \
	VPCOMPRESSQ Z5, K1, Z6 \
	VPCOMPRESSQ Z1, K1, Z7 \
	VMOVDQA64   Z7, Z8 \
	VPERMT2Q    Z6, Z3, Z8 \
	VPERMT2Q    Z6, Z4, Z7 \
	MOVQ        R8, DX \
	SHLQ        $4, DX \
	VMOVDQU64   Z8, (DI)(DX*1) \
	VMOVDQU64   Z7, 64(DI)(DX*1) \
	KMOVW       K1, BX \
	POPCNTL     BX, BX \
	ADDQ        BX, R8

// NZ_TAILMASK sets K2 to the lanes of the last CX (< 8) entries.
#define NZ_TAILMASK \
	MOVQ  $1, BX \
	SHLQ  CX, BX \
	DECQ  BX \
	KMOVW BX, K2

// func nonzeroTermsAVX512(dst *Term, x []float64, offs *[8]int, step int) int
//
// DI dst, SI x, CX the entries left, Z1 the lanes' Offs, Z2 the step
// between registers, Z3 and Z4 the interleaving indices, Z0 zero, R8
// the terms written.
TEXT ·nonzeroTermsAVX512(SB), NOSPLIT, $0-56
	MOVQ         dst+0(FP), DI
	MOVQ         x_base+8(FP), SI
	MOVQ         x_len+16(FP), CX
	MOVQ         offs+32(FP), AX
	VMOVDQU64    (AX), Z1
	MOVQ         step+40(FP), AX
	VPBROADCASTQ AX, Z2
	VMOVDQU64    ilvLo<>(SB), Z3
	VMOVDQU64    ilvHi<>(SB), Z4
	VPXORQ       Z0, Z0, Z0
	XORQ         R8, R8

loop:
	CMPQ    CX, $8
	JL      tail
	VMOVUPD (SI), Z5
	VCMPPD  $4, Z0, Z5, K1 // x != 0, true for NaN
	NZ8
	VPADDQ  Z2, Z1, Z1
	ADDQ    $64, SI
	SUBQ    $8, CX
	JMP     loop

tail:
	TESTQ     CX, CX
	JZ        done
	NZ_TAILMASK
	VMOVUPD.Z (SI), K2, Z5
	VCMPPD    $4, Z0, Z5, K2, K1
	NZ8

done:
	MOVQ R8, ret+48(FP)
	VZEROUPPER
	RET

// The lanes of eight Term32s: Off then A (dwords), Offs from the first
// table, As from the second.
DATA ilv32<>+0(SB)/4, $0
DATA ilv32<>+4(SB)/4, $16
DATA ilv32<>+8(SB)/4, $1
DATA ilv32<>+12(SB)/4, $17
DATA ilv32<>+16(SB)/4, $2
DATA ilv32<>+20(SB)/4, $18
DATA ilv32<>+24(SB)/4, $3
DATA ilv32<>+28(SB)/4, $19
DATA ilv32<>+32(SB)/4, $4
DATA ilv32<>+36(SB)/4, $20
DATA ilv32<>+40(SB)/4, $5
DATA ilv32<>+44(SB)/4, $21
DATA ilv32<>+48(SB)/4, $6
DATA ilv32<>+52(SB)/4, $22
DATA ilv32<>+56(SB)/4, $7
DATA ilv32<>+60(SB)/4, $23
GLOBL ilv32<>(SB), RODATA|NOPTR, $64

// NZ8S writes the Term32s of the lanes of Z6 under K1 (the non-zero
// ones; lanes 8-15 are never set) at term R8 of DI, eight terms whatever
// their number (the ones past it are overwritten next or are slack), and
// advances R8 by their number.
#define NZ8S \
	VPCOMPRESSD Z6, K1, Z7 \
	VPCOMPRESSD Z1, K1, Z8 \
	VPERMT2D    Z7, Z3, Z8 \
	MOVQ        R8, DX \
	SHLQ        $3, DX \
	VMOVDQU32   Z8, (DI)(DX*1) \
	KMOVW       K1, BX \
	POPCNTL     BX, BX \
	ADDQ        BX, R8

// func nonzeroTerms32AVX512(dst *Term32, x []float32, offs *[8]int32, step int) int
//
// nonzeroTermsAVX512 for float32 entries and Term32s: Y1 holds the
// lanes' 32-bit Offs, Z2 the step between registers of eight. It goes
// sixteen entries a register (Z9 their Offs, Z11 the step between them;
// the two halves interleaved by ilv32 and by ilv32 + 8), then eight, then
// the tail.
TEXT ·nonzeroTerms32AVX512(SB), NOSPLIT, $0-56
	MOVQ         dst+0(FP), DI
	MOVQ         x_base+8(FP), SI
	MOVQ         x_len+16(FP), CX
	MOVQ         offs+32(FP), AX
	VMOVDQU      (AX), Y1 // lanes 8-15 of Z1 cleared
	MOVQ         step+40(FP), AX
	VPBROADCASTD AX, Z2
	VMOVDQU32    ilv32<>(SB), Z3
	VPXORQ       Z0, Z0, Z0
	XORQ         R8, R8

	// Sixteen entries at a time: Z9 the sixteen lanes' Offs, Z11 the
	// step between registers, Z12 the second eight terms' interleaving
	// (ilv32's indices plus 8: Offs 8-15 and As 8-15).
	VPADDD        Y2, Y1, Y10
	VINSERTI32X8  $1, Y10, Z1, Z9
	VPADDD        Z2, Z2, Z11
	MOVL          $8, AX
	VPBROADCASTD  AX, Z12
	VPADDD        Z3, Z12, Z12

loop16:
	CMPQ        CX, $16
	JL          rest16
	VMOVUPS     (SI), Z6
	VCMPPS      $4, Z0, Z6, K1 // x != 0, true for NaN
	VPCOMPRESSD Z6, K1, Z7
	VPCOMPRESSD Z9, K1, Z8
	VMOVDQA32   Z8, Z13
	VPERMT2D    Z7, Z3, Z8
	VPERMT2D    Z7, Z12, Z13
	MOVQ        R8, DX
	SHLQ        $3, DX
	VMOVDQU32   Z8, (DI)(DX*1)
	VMOVDQU32   Z13, 64(DI)(DX*1)
	KMOVW       K1, BX
	POPCNTL     BX, BX
	ADDQ        BX, R8
	VPADDD      Z11, Z9, Z9
	ADDQ        $64, SI
	SUBQ        $16, CX
	JMP         loop16

rest16:
	VMOVDQA32 Z9, Z1 // lanes 8-15 are masked out below

loop32:
	CMPQ    CX, $8
	JL      tail32
	VMOVUPS (SI), Y6 // lanes 8-15 of Z6 cleared
	VCMPPS  $4, Z0, Z6, K1 // x != 0, true for NaN
	NZ8S
	VPADDD  Z2, Z1, Z1
	ADDQ    $32, SI
	SUBQ    $8, CX
	JMP     loop32

tail32:
	TESTQ       CX, CX
	JZ          done32
	NZ_TAILMASK
	VMOVDQU32.Z (SI), K2, Z6
	VCMPPS      $4, Z0, Z6, K2, K1
	NZ8S

done32:
	MOVQ R8, ret+48(FP)
	VZEROUPPER
	RET

// func hasZeroAVX512(x []float64) bool
TEXT ·hasZeroAVX512(SB), NOSPLIT, $0-25
	MOVQ   x_base+0(FP), SI
	MOVQ   x_len+8(FP), CX
	VPXORQ Z0, Z0, Z0

hzloop:
	CMPQ    CX, $32
	JL      hz8
	VCMPPD  $0, (SI), Z0, K1 // == 0 (either zero; NaN is not)
	VCMPPD  $0, 64(SI), Z0, K2
	VCMPPD  $0, 128(SI), Z0, K3
	VCMPPD  $0, 192(SI), Z0, K4
	KORW    K1, K2, K1
	KORW    K3, K4, K3
	KORTESTW K1, K3
	JNZ     yes
	ADDQ    $256, SI
	SUBQ    $32, CX
	JMP     hzloop

hz8:
	CMPQ    CX, $8
	JL      hztail
	VCMPPD  $0, (SI), Z0, K1
	KORTESTW K1, K1
	JNZ     yes
	ADDQ    $64, SI
	SUBQ    $8, CX
	JMP     hz8

hztail:
	TESTQ     CX, CX
	JZ        no
	NZ_TAILMASK
	VMOVUPD.Z (SI), K2, Z5
	VCMPPD    $0, Z0, Z5, K2, K1
	KORTESTW  K1, K1
	JNZ       yes

no:
	VZEROUPPER
	MOVB $0, ret+24(FP)
	RET

yes:
	VZEROUPPER
	MOVB $1, ret+24(FP)
	RET
