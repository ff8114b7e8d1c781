// The masks of a strip of columns and the sums of four rows in
// registers, for the RowSums and DenseSums kernels (rowsums_amd64.s,
// rowsums32_amd64.s, rowsumsat_amd64.s, densesums_amd64.s); ZERO8 for
// the scaled sums too (scaled_amd64.h). At AVX2, ZERO8Y for every
// kernel with eight Y accumulators, LOAD8Y and STORE8Y for the sums of
// four rows of two registers (densesumsavx2_amd64.s).

// LANEMASK sets K to the lanes of a register of W lanes that holds the
// columns OFF .. OFF+W-1 of a strip when BX columns are left: all W of
// them, the first BX-OFF, or none. It uses AX and CX.
#define LANEMASK(OFF, W, K) \
	MOVQ    BX, CX \
	SUBQ    $OFF, CX \
	MOVQ    $W, AX \
	CMPQ    CX, AX \
	CMOVQGT AX, CX \
	XORQ    AX, AX \
	CMPQ    CX, AX \
	CMOVQLT AX, CX \
	MOVQ    $1, AX \
	SHLQ    CX, AX \
	DECQ    AX \
	KMOVW   AX, K

// STRIPMASKS sets K1-K4 to the lanes of the four registers of a strip
// of 32 float64 columns when BX columns are left; it uses AX and CX.
#define STRIPMASKS \
	LANEMASK(0, 8, K1) \
	LANEMASK(8, 8, K2) \
	LANEMASK(16, 8, K3) \
	LANEMASK(24, 8, K4)

// STRIPMASKS32 is STRIPMASKS for a strip of 64 float32 columns.
#define STRIPMASKS32 \
	LANEMASK(0, 16, K1) \
	LANEMASK(16, 16, K2) \
	LANEMASK(32, 16, K3) \
	LANEMASK(48, 16, K4)

// ZERO8 sets Z0-Z7 to +0.
#define ZERO8 \
	VPXORQ Z0, Z0, Z0 \
	VPXORQ Z1, Z1, Z1 \
	VPXORQ Z2, Z2, Z2 \
	VPXORQ Z3, Z3, Z3 \
	VPXORQ Z4, Z4, Z4 \
	VPXORQ Z5, Z5, Z5 \
	VPXORQ Z6, Z6, Z6 \
	VPXORQ Z7, Z7, Z7

// ZERO16 sets the sixteen sums of four rows (Z0-Z15) to +0.
#define ZERO16 \
	ZERO8 \
	VPXORQ Z8, Z8, Z8 \
	VPXORQ Z9, Z9, Z9 \
	VPXORQ Z10, Z10, Z10 \
	VPXORQ Z11, Z11, Z11 \
	VPXORQ Z12, Z12, Z12 \
	VPXORQ Z13, Z13, Z13 \
	VPXORQ Z14, Z14, Z14 \
	VPXORQ Z15, Z15, Z15

// LOAD16 loads the sums of four rows from their strips at B, B+S, B+2S
// and B+S3 (S3 = 3S), the lanes of each register under K1-K4.
#define LOAD16(B, S, S3) \
	VMOVUPD.Z (B), K1, Z0 \
	VMOVUPD.Z 64(B), K2, Z1 \
	VMOVUPD.Z 128(B), K3, Z2 \
	VMOVUPD.Z 192(B), K4, Z3 \
	VMOVUPD.Z (B)(S*1), K1, Z4 \
	VMOVUPD.Z 64(B)(S*1), K2, Z5 \
	VMOVUPD.Z 128(B)(S*1), K3, Z6 \
	VMOVUPD.Z 192(B)(S*1), K4, Z7 \
	VMOVUPD.Z (B)(S*2), K1, Z8 \
	VMOVUPD.Z 64(B)(S*2), K2, Z9 \
	VMOVUPD.Z 128(B)(S*2), K3, Z10 \
	VMOVUPD.Z 192(B)(S*2), K4, Z11 \
	VMOVUPD.Z (B)(S3*1), K1, Z12 \
	VMOVUPD.Z 64(B)(S3*1), K2, Z13 \
	VMOVUPD.Z 128(B)(S3*1), K3, Z14 \
	VMOVUPD.Z 192(B)(S3*1), K4, Z15

// STORE16 stores the sums of four rows as LOAD16 loaded them.
#define STORE16(B, S, S3) \
	VMOVUPD Z0, K1, (B) \
	VMOVUPD Z1, K2, 64(B) \
	VMOVUPD Z2, K3, 128(B) \
	VMOVUPD Z3, K4, 192(B) \
	VMOVUPD Z4, K1, (B)(S*1) \
	VMOVUPD Z5, K2, 64(B)(S*1) \
	VMOVUPD Z6, K3, 128(B)(S*1) \
	VMOVUPD Z7, K4, 192(B)(S*1) \
	VMOVUPD Z8, K1, (B)(S*2) \
	VMOVUPD Z9, K2, 64(B)(S*2) \
	VMOVUPD Z10, K3, 128(B)(S*2) \
	VMOVUPD Z11, K4, 192(B)(S*2) \
	VMOVUPD Z12, K1, (B)(S3*1) \
	VMOVUPD Z13, K2, 64(B)(S3*1) \
	VMOVUPD Z14, K3, 128(B)(S3*1) \
	VMOVUPD Z15, K4, 192(B)(S3*1)

// ZERO8Y sets Y0-Y7 to +0.
#define ZERO8Y \
	VXORPD Y0, Y0, Y0 \
	VXORPD Y1, Y1, Y1 \
	VXORPD Y2, Y2, Y2 \
	VXORPD Y3, Y3, Y3 \
	VXORPD Y4, Y4, Y4 \
	VXORPD Y5, Y5, Y5 \
	VXORPD Y6, Y6, Y6 \
	VXORPD Y7, Y7, Y7

// LOAD8Y loads the sums of four rows of eight float64 columns, two
// registers a row (Y0 and Y1, Y2 and Y3, ...), from B, B+S, B+2S and
// B+S3 (S3 = 3S).
#define LOAD8Y(B, S, S3) \
	VMOVUPD (B), Y0 \
	VMOVUPD 32(B), Y1 \
	VMOVUPD (B)(S*1), Y2 \
	VMOVUPD 32(B)(S*1), Y3 \
	VMOVUPD (B)(S*2), Y4 \
	VMOVUPD 32(B)(S*2), Y5 \
	VMOVUPD (B)(S3*1), Y6 \
	VMOVUPD 32(B)(S3*1), Y7

// STORE8Y stores the sums of four rows as LOAD8Y loaded them.
#define STORE8Y(B, S, S3) \
	VMOVUPD Y0, (B) \
	VMOVUPD Y1, 32(B) \
	VMOVUPD Y2, (B)(S*1) \
	VMOVUPD Y3, 32(B)(S*1) \
	VMOVUPD Y4, (B)(S*2) \
	VMOVUPD Y5, 32(B)(S*2) \
	VMOVUPD Y6, (B)(S3*1) \
	VMOVUPD Y7, 32(B)(S3*1)
