// The masks of a strip of 32 float64 columns, for the RowSums and
// DenseSums kernels (rowsums_amd64.s, rowsumsat_amd64.s,
// densesums_amd64.s).

// STRIPMASKS sets K1-K4 to the lanes of the four registers of a strip
// of 32 columns when BX columns are left (all of them from 32 on, none
// of a register past the last column); it uses AX and CX.
#define STRIPMASKS \
	MOVQ    BX, CX \
	SUBQ    $0, CX \
	MOVQ    $8, AX \
	CMPQ    CX, AX \
	CMOVQGT AX, CX \
	XORQ    AX, AX \
	CMPQ    CX, AX \
	CMOVQLT AX, CX \
	MOVQ    $1, AX \
	SHLQ    CX, AX \
	DECQ    AX \
	KMOVW   AX, K1 \
	MOVQ    BX, CX \
	SUBQ    $8, CX \
	MOVQ    $8, AX \
	CMPQ    CX, AX \
	CMOVQGT AX, CX \
	XORQ    AX, AX \
	CMPQ    CX, AX \
	CMOVQLT AX, CX \
	MOVQ    $1, AX \
	SHLQ    CX, AX \
	DECQ    AX \
	KMOVW   AX, K2 \
	MOVQ    BX, CX \
	SUBQ    $16, CX \
	MOVQ    $8, AX \
	CMPQ    CX, AX \
	CMOVQGT AX, CX \
	XORQ    AX, AX \
	CMPQ    CX, AX \
	CMOVQLT AX, CX \
	MOVQ    $1, AX \
	SHLQ    CX, AX \
	DECQ    AX \
	KMOVW   AX, K3 \
	MOVQ    BX, CX \
	SUBQ    $24, CX \
	MOVQ    $8, AX \
	CMPQ    CX, AX \
	CMOVQGT AX, CX \
	XORQ    AX, AX \
	CMPQ    CX, AX \
	CMOVQLT AX, CX \
	MOVQ    $1, AX \
	SHLQ    CX, AX \
	DECQ    AX \
	KMOVW   AX, K4
