//go:build amd64 && !purego

#include "textflag.h"

// func offsInRangeAVX512(p *Term, n, last int) bool
//
// p points to n terms of 16 bytes (Term), each starting with its Off;
// the result reports whether every uint(Off) <= uint(last). Eight terms
// (two registers, the Offs in their even lanes) are compared at a time.
TEXT ·offsInRangeAVX512(SB), NOSPLIT, $0-25
	MOVQ         p+0(FP), SI
	MOVQ         n+8(FP), CX
	MOVQ         last+16(FP), AX
	VPBROADCASTQ AX, Z31
	MOVQ         $0x55, DX
	KMOVW        DX, K3 // the even lanes: the Offs
	KXORW        K4, K4, K4

loop:
	CMPQ      CX, $8
	JL        tail
	VMOVDQU64 (SI), Z0
	VMOVDQU64 64(SI), Z1
	VPCMPUQ   $6, Z31, Z0, K3, K1 // Off > last, unsigned
	VPCMPUQ   $6, Z31, Z1, K3, K2
	KORW      K1, K4, K4
	KORW      K2, K4, K4
	ADDQ      $128, SI
	SUBQ      $8, CX
	JMP       loop

tail:
	KORTESTW K4, K4
	JNZ      bad
	TESTQ    CX, CX
	JZ       ok

tail1:
	MOVQ (SI), DX
	CMPQ DX, AX
	JHI  bad
	ADDQ $16, SI
	DECQ CX
	JNZ  tail1

ok:
	VZEROUPPER
	MOVB $1, ret+24(FP)
	RET

bad:
	VZEROUPPER
	MOVB $0, ret+24(FP)
	RET

// func offs32InRangeAVX512(p *Term32, n, last int) bool
//
// p points to n terms of 8 bytes (Term32), each starting with its 32-bit
// Off; last is at least 0 and at most MaxOff32. The result reports
// whether every uint32(Off) <= last, which leaves out the negative Offs.
// Sixteen terms (two registers, the Offs in their even lanes) are
// compared at a time.
TEXT ·offs32InRangeAVX512(SB), NOSPLIT, $0-25
	MOVQ         p+0(FP), SI
	MOVQ         n+8(FP), CX
	MOVQ         last+16(FP), AX
	VPBROADCASTD AX, Z31
	MOVQ         $0x5555, DX
	KMOVW        DX, K3 // the even lanes: the Offs
	KXORW        K4, K4, K4

loop32:
	CMPQ      CX, $16
	JL        tail32
	VMOVDQU32 (SI), Z0
	VMOVDQU32 64(SI), Z1
	VPCMPUD   $6, Z31, Z0, K3, K1 // Off > last, unsigned
	VPCMPUD   $6, Z31, Z1, K3, K2
	KORW      K1, K4, K4
	KORW      K2, K4, K4
	ADDQ      $128, SI
	SUBQ      $16, CX
	JMP       loop32

tail32:
	KORTESTW K4, K4
	JNZ      bad32
	TESTQ    CX, CX
	JZ       ok32

tail32one:
	MOVL (SI), DX
	CMPL DX, AX
	JHI  bad32
	ADDQ $8, SI
	DECQ CX
	JNZ  tail32one

ok32:
	VZEROUPPER
	MOVB $1, ret+24(FP)
	RET

bad32:
	VZEROUPPER
	MOVB $0, ret+24(FP)
	RET
