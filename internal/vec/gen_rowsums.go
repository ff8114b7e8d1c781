//go:build ignore

// gen_rowsums writes the AVX2 RowSums kernels, rowsumsavx2_amd64.s
// (float64) and rowsums32avx2_amd64.s (float32), from one template:
//
//	go generate ./internal/vec
//
// or into another directory, go run gen_rowsums.go DIR (TestGenerated
// compares the two).
//
// Both walk the columns in strips of four Y registers a row, three rows
// at a time (twelve accumulators), then strips of two registers a row,
// four rows at a time, the last columns under masks.
package main

import (
	"fmt"
	"log"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
)

// prec describes one precision's instructions and layout.
type prec struct {
	name      string // float64 or float32
	file      string
	fn        string // the kernel's Go name
	term      string // Term or Term32
	mask      string // the mask table's symbol
	es        int    // bytes an element
	ts        int    // bytes a term
	x         string // the instructions' suffix, PD or PS
	movOff    string // loads a term's Off into AX
	broadcast string // broadcasts a term's A
	macro     string // suffix of the macros' names
}

var precs = []prec{
	{"float64", "rowsumsavx2_amd64.s", "rowSumsAVX2", "Term", "mask64", 8, 16, "PD", "MOVQ", "VBROADCASTSD 8(T)", "D"},
	{"float32", "rowsums32avx2_amd64.s", "rowSums32AVX2", "Term32", "mask32", 4, 8, "PS", "MOVLQSX", "VBROADCASTSS 4(T)", "S"},
}

const (
	wideRegs, wideRows     = 4, 3 // the wide strips: registers a row, rows a group
	narrowRegs, narrowRows = 2, 4 // the narrow strips and the masked last one
)

func main() {
	dir := "."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	for _, p := range precs {
		var b strings.Builder
		p.kernel(&b)
		if err := os.WriteFile(filepath.Join(dir, p.file), []byte(b.String()), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

func (p prec) lanes() int { return 32 / p.es }

// shift returns log2(n) for n a power of two.
func shift(n int) int { return bits.TrailingZeros(uint(n)) }

// macroName is the name of termMacro's macro for w registers a row.
func (p prec) macroName(w int, masked bool) string {
	if masked {
		return fmt.Sprintf("TERM%dM%s", w, p.macro)
	}
	return fmt.Sprintf("TERM%d%s", w, p.macro)
}

// termMacro writes the macro that adds one term, at T (Off, then A), to
// the w accumulators of a row. Each product is A*src (the coefficient
// first) and each sum acc+product, both rounded.
func (p prec) termMacro(b *strings.Builder, w int, masked bool) {
	name := p.macroName(w, masked)
	accs := make([]string, w)
	for i := range accs {
		accs[i] = fmt.Sprintf("A%d", i)
	}
	var l []string
	l = append(l, fmt.Sprintf("#define %s(T, %s)", name, strings.Join(accs, ", ")))
	l = append(l, fmt.Sprintf("\t%-12s (T), AX", p.movOff))
	if !masked {
		l = append(l, fmt.Sprintf("\t%s, Y15", p.broadcast))
		tmps := []string{"Y12", "Y13", "Y14"}
		for i := range w {
			t := tmps[i%len(tmps)]
			l = append(l, fmt.Sprintf("\tVMUL%s       %s(PSRC)(AX*%d), Y15, %s", p.x, disp(32*i), p.es, t))
			l = append(l, fmt.Sprintf("\tVADD%s       %s, A%d, A%d", p.x, t, i, i))
		}
	} else {
		l = append(l, fmt.Sprintf("\t%s, Y8", p.broadcast))
		tmps := []string{"Y9", "Y10"}
		for i := range w {
			l = append(l, fmt.Sprintf("\tVMASKMOV%s   %s(PSRC)(AX*%d), %s, %s", p.x, disp(32*i), p.es, maskReg(i), tmps[i]))
		}
		for i := range w {
			l = append(l, fmt.Sprintf("\tVMUL%s       %s, Y8, %s", p.x, tmps[i], tmps[i]))
		}
		for i := range w {
			l = append(l, fmt.Sprintf("\tVADD%s       %s, A%d, A%d", p.x, tmps[i], i, i))
		}
	}
	l = append(l, fmt.Sprintf("\tADDQ         $%d, T", p.ts))
	fmt.Fprintf(b, "%s\n\n", strings.Join(l, " \\\n"))
}

func disp(d int) string {
	if d == 0 {
		return ""
	}
	return fmt.Sprint(d)
}

func maskReg(i int) string {
	if i == 0 {
		return "Y14"
	}
	return "Y15"
}

// group writes the loop over groups of g rows of one strip of w
// registers a row, labels ending in sfx, and then the last rows one at a
// time; it jumps to next when the strip's rows are done.
func (p prec) group(b *strings.Builder, sfx string, w, g int, masked bool, next string) {
	term := p.macroName(w, masked)
	rows := []string{"", "(STR*1)", "(STR*2)", "(AX*1)"} // row 3's offset is in AX
	regs := []string{"R8", "R9", "R10", "R11"}
	acc := func(r, i int) string { return fmt.Sprintf("Y%d", w*r+i) }
	accs := func(r int) string {
		s := make([]string, w)
		for i := range s {
			s[i] = acc(r, i)
		}
		return strings.Join(s, ", ")
	}
	addr := func(i int, row string) string { return disp(32*i) + "(PDST)" + row }
	load := func(reg string, i int, row string) {
		if masked {
			fmt.Fprintf(b, "\tVMASKMOV%s %s, %s, %s\n", p.x, addr(i, row), maskReg(i), reg)
		} else {
			fmt.Fprintf(b, "\tVMOVU%s %s, %s\n", p.x, addr(i, row), reg)
		}
	}
	store := func(reg string, i int, row string) {
		if masked {
			fmt.Fprintf(b, "\tVMASKMOV%s %s, %s, %s\n", p.x, reg, maskReg(i), addr(i, row))
		} else {
			fmt.Fprintf(b, "\tVMOVU%s %s, %s\n", p.x, reg, addr(i, row))
		}
	}
	row3 := func() {
		if g == 4 {
			fmt.Fprintf(b, "\tLEAQ    (STR)(STR*2), AX // row 3\n")
		}
	}

	fmt.Fprintf(b, "\ngroup%s: // %d rows, their terms at R8-%s\n", sfx, g, regs[g-1])
	fmt.Fprintf(b, "\tCMPQ    LEFT, $%d\n\tJL      rest%s\n", g, sfx)
	for r := 1; r < g; r++ {
		fmt.Fprintf(b, "\tMOVQ    %d(NP), BX\n\tSHLQ    $%d, BX // %d bytes a term\n\tLEAQ    (%s)(BX*1), %s\n", 8*(r-1), shift(p.ts), p.ts, regs[r-1], regs[r])
	}
	fmt.Fprintf(b, "\tMOVQ    0(NP), CX // CX = the fewest terms of the %d rows\n", g)
	for r := 1; r < g; r++ {
		fmt.Fprintf(b, "\tMOVQ    %d(NP), BX\n\tCMPQ    BX, CX\n\tCMOVQLT BX, CX\n", 8*r)
	}
	row3()
	fmt.Fprintf(b, "\tCMPB    zero+112(FP), $0\n\tJEQ     load%s\n", sfx)
	for r := range g {
		for i := range w {
			fmt.Fprintf(b, "\tVXOR%s  %s, %s, %s\n", p.x, acc(r, i), acc(r, i), acc(r, i))
		}
	}
	fmt.Fprintf(b, "\tJMP     sum%s\n\nload%s:\n", sfx, sfx)
	for r := range g {
		for i := range w {
			load(acc(r, i), i, rows[r])
		}
	}
	fmt.Fprintf(b, "\nsum%s:\n\tMOVQ  CX, BX\n\tTESTQ BX, BX\n\tJZ    tail0%s\n\n", sfx, sfx)
	fmt.Fprintf(b, "loop%s: // one term of each row; the rows' sums are independent\n", sfx)
	for r := range g {
		fmt.Fprintf(b, "\t%s(%s, %s)\n", term, regs[r], accs(r))
	}
	fmt.Fprintf(b, "\tDECQ BX\n\tJNZ  loop%s\n", sfx)
	for r := range g {
		to := fmt.Sprintf("tail%d%s", r+1, sfx)
		if r == g-1 {
			to = "store" + sfx
		}
		fmt.Fprintf(b, "\ntail%d%s: // row %d's terms beyond the fewest\n\tMOVQ %d(NP), BX\n\tSUBQ CX, BX\n\tJZ   %s\n\n", r, sfx, r, 8*r, to)
		fmt.Fprintf(b, "loop%d%s:\n\t%s(%s, %s)\n\tDECQ BX\n\tJNZ  loop%d%s\n", r, sfx, term, regs[r], accs(r), r, sfx)
	}
	fmt.Fprintf(b, "\nstore%s:\n", sfx)
	row3()
	for r := range g {
		for i := range w {
			store(acc(r, i), i, rows[r])
		}
	}
	fmt.Fprintf(b, "\tMOVQ %s, R8 // %s has passed row %d's terms: the next group's\n", regs[g-1], regs[g-1], g-1)
	if g == 3 {
		fmt.Fprintf(b, "\tLEAQ (PDST)(STR*2), PDST\n\tADDQ STR, PDST\n")
	} else {
		fmt.Fprintf(b, "\tLEAQ (PDST)(STR*%d), PDST\n", g)
	}
	fmt.Fprintf(b, "\tADDQ $%d, NP\n\tSUBQ $%d, LEFT\n\tJMP  group%s\n", 8*g, g, sfx)

	fmt.Fprintf(b, "\nrest%s: // the last rows, one at a time\n\tTESTQ LEFT, LEFT\n\tJZ    %s\n", sfx, next)
	for i := range w {
		fmt.Fprintf(b, "\tVXOR%s Y%d, Y%d, Y%d\n", p.x, i, i, i)
	}
	fmt.Fprintf(b, "\tCMPB  zero+112(FP), $0\n\tJNE   sum1%s\n", sfx)
	for i := range w {
		load(acc(0, i), i, "")
	}
	fmt.Fprintf(b, "\nsum1%s:\n\tMOVQ  0(NP), BX\n\tTESTQ BX, BX\n\tJZ    store1%s\n\n", sfx, sfx)
	fmt.Fprintf(b, "loop1r%s:\n\t%s(R8, %s)\n\tDECQ BX\n\tJNZ  loop1r%s\n\nstore1%s:\n", sfx, term, accs(0), sfx, sfx)
	for i := range w {
		store(acc(0, i), i, "")
	}
	fmt.Fprintf(b, "\tADDQ STR, PDST\n\tADDQ $8, NP\n\tDECQ LEFT\n\tJMP  rest%s\n", sfx)
}

// setup points the strip's registers at column P.
func (p prec) setup(b *strings.Builder) {
	fmt.Fprintf(b, `	MOVQ src_base+40(FP), PSRC
	LEAQ (PSRC)(P*%d), PSRC
	MOVQ dst_base+0(FP), PDST
	LEAQ (PDST)(P*%d), PDST
	MOVQ terms_base+64(FP), R8
	MOVQ n_base+88(FP), NP
	MOVQ n_len+96(FP), LEFT
`, p.es, p.es)
}

func (p prec) kernel(b *strings.Builder) {
	wide, narrow := p.lanes()*wideRegs, p.lanes()*narrowRegs
	fmt.Fprintf(b, `// Code generated by gen_rowsums.go; DO NOT EDIT.

//go:build amd64 && !purego

#include "textflag.h"
#include "rowsums_amd64.h"

// The %[1]s RowSums kernel at AVX2. The columns are walked in strips
// of %[2]d (%[3]d Y registers a row), %[4]d rows at a time, one term of each in
// turn, so that their %[5]d accumulators' chains of additions overlap and
// the strip of the source (%[6]d bytes of each row the terms name) stays
// in cache while the rows read it. Terms beyond the fewest of a group are
// added row by row, the last rows alone. The last columns go in strips of
// %[7]d (%[8]d registers a row, %[9]d rows at a time), the last 1 to %[10]d under the
// masks Y14 and Y15. Every element gets its terms in order, each product
// and each sum rounded: the bits of the portable code.

`, p.name, wide, wideRegs, wideRows, wideRegs*wideRows, p.es*wide, narrow, narrowRegs, narrowRows, narrow-1)
	p.termMacro(b, wideRegs, false)
	p.termMacro(b, narrowRegs, false)
	p.termMacro(b, narrowRegs, true)

	fmt.Fprintf(b, `// func %[1]s(dst []%[2]s, stride, cols int, src []%[2]s, terms []%[3]s, n []int, zero bool)
TEXT ·%[1]s(SB), NOSPLIT, $0-113
	MOVQ stride+24(FP), STR
	SHLQ $%[4]d, STR
	XORQ P, P

strip: // columns P .. P+%[5]d of every row
	MOVQ cols+32(FP), BX
	SUBQ P, BX // columns left
	JLE  done
	CMPQ BX, $%[6]d
	JL   narrow
`, p.fn, p.name, p.term, shift(p.es), wide-1, wide)
	p.setup(b)
	p.group(b, "", wideRegs, wideRows, false, "next")
	fmt.Fprintf(b, `
next:
	ADDQ $%d, P
	JMP  strip

narrow: // the last 1 to %d columns (BX)
	CMPQ BX, $%d
	JL   masked
`, wide, wide-1, narrow)
	p.setup(b)
	p.group(b, "S", narrowRegs, narrowRows, false, "nextS")
	fmt.Fprintf(b, `
nextS:
	ADDQ $%[1]d, P
	MOVQ cols+32(FP), BX
	SUBQ P, BX
	JLE  done
	JMP  narrow

masked: // the last 1 to %[2]d columns (BX), lanes under Y14 and Y15
	LEAQ    %[3]s<>(SB), AX
	NEGQ    BX
	VMOVDQU %[4]d(AX)(BX*%[5]d), Y14
	VMOVDQU %[6]d(AX)(BX*%[5]d), Y15
`, narrow, narrow-1, p.mask, narrow*p.es, p.es, narrow*p.es+32)
	p.setup(b)
	p.group(b, "M", narrowRegs, narrowRows, true, "done")
	fmt.Fprintf(b, `
done:
	VZEROUPPER
	RET

// %[1]s<>+%[2]d*(%[3]d-r) holds the masks (two registers) of the first r of %[3]d
// lanes, r = 1 .. %[4]d.
`, p.mask, p.es, narrow, narrow-1)
	for i := range 2 * narrow {
		v := "0"
		if i < narrow {
			v = "0x" + strings.Repeat("f", 2*p.es)
		}
		fmt.Fprintf(b, "DATA %s<>+%d(SB)/%d, $%s\n", p.mask, p.es*i, p.es, v)
	}
	fmt.Fprintf(b, "GLOBL %s<>(SB), RODATA|NOPTR, $%d\n", p.mask, 2*narrow*p.es)
}
