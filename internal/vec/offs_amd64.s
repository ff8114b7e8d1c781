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

// func offsInRangeAVX2(p *Term, n, last int) bool
//
// offsInRangeAVX512 at AVX2, which has no unsigned compare: with the
// sign bits flipped, uint(Off) > uint(last) is a signed compare. Y3
// gathers the compares of two Terms a register (the odd lanes, the As,
// are left out at the end).
TEXT ·offsInRangeAVX2(SB), NOSPLIT, $0-25
	MOVQ      p+0(FP), SI
	MOVQ      n+8(FP), CX
	MOVQ      last+16(FP), AX
	MOVQ      $0x8000000000000000, DX
	MOVQ      DX, X4
	VPBROADCASTQ X4, Y4 // the sign bits
	MOVQ      AX, X5
	VPBROADCASTQ X5, Y5
	VPXOR     Y4, Y5, Y5 // last, flipped
	VPXOR     Y3, Y3, Y3

loop2:
	CMPQ      CX, $4
	JL        tail2
	VPXOR     (SI), Y4, Y0
	VPXOR     32(SI), Y4, Y1
	VPCMPGTQ  Y5, Y0, Y0 // Off > last, unsigned
	VPCMPGTQ  Y5, Y1, Y1
	VPOR      Y0, Y3, Y3
	VPOR      Y1, Y3, Y3
	ADDQ      $64, SI
	SUBQ      $4, CX
	JMP       loop2

tail2:
	VMOVMSKPD Y3, DX
	ANDL      $5, DX // the Offs' lanes
	JNZ       bad2
	TESTQ     CX, CX
	JZ        ok2

tail2one:
	MOVQ      (SI), DX
	CMPQ      DX, AX
	JHI       bad2
	ADDQ      $16, SI
	DECQ      CX
	JNZ       tail2one

ok2:
	VZEROUPPER
	MOVB      $1, ret+24(FP)
	RET

bad2:
	VZEROUPPER
	MOVB      $0, ret+24(FP)
	RET

// func offs32InRangeAVX2(p *Term32, n, last int) bool
//
// offs32InRangeAVX512 at AVX2: Y2 and Y3 keep the unsigned maxima of
// the lanes of four Term32s a register, whose even lanes (the Offs) must
// not pass last.
TEXT ·offs32InRangeAVX2(SB), NOSPLIT, $0-25
	MOVQ      p+0(FP), SI
	MOVQ      n+8(FP), CX
	MOVQ      last+16(FP), AX
	MOVQ      AX, X5
	VPBROADCASTD X5, Y5
	VPXOR     Y2, Y2, Y2
	VPXOR     Y3, Y3, Y3

loop4:
	CMPQ      CX, $8
	JL        tail4
	VPMAXUD   (SI), Y2, Y2
	VPMAXUD   32(SI), Y3, Y3
	ADDQ      $64, SI
	SUBQ      $8, CX
	JMP       loop4

tail4:
	VPMAXUD   Y3, Y2, Y2
	VPMAXUD   Y5, Y2, Y3
	VPCMPEQD  Y5, Y3, Y3 // lanes at most last
	VMOVMSKPS Y3, DX
	ANDL      $0x55, DX
	CMPL      DX, $0x55
	JNE       bad4
	TESTQ     CX, CX
	JZ        ok4

tail4one:
	MOVL      (SI), DX
	CMPL      DX, AX
	JHI       bad4
	ADDQ      $8, SI
	DECQ      CX
	JNZ       tail4one

ok4:
	VZEROUPPER
	MOVB      $1, ret+24(FP)
	RET

bad4:
	VZEROUPPER
	MOVB      $0, ret+24(FP)
	RET
