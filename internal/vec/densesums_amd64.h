// Registers and set-up of the DenseSums kernels (densesums_amd64.s,
// densesumsavx2_amd64.s), whose arguments are
// (dst []float64, stride, cols int, src []float64, srcStride int,
// a []float64, rs, ts, rows, terms int, zero bool).

#define STR DX   // stride of dst in bytes
#define PDST DI  // &dst[row*stride + P] of the current group
#define LEFT R13 // groups of four rows left in the strip
#define P R14    // first column of the strip
#define RS R8    // rs in bytes
#define RS3 R9   // 3*rs in bytes
#define TS R10   // ts in bytes
#define SS R11   // srcStride in bytes
#define PC R12   // &a[row*rs + t*ts] of the group's first row
#define PS SI    // &src[t*srcStride + P]
#define PG R15   // &a[row*rs] of the group's first row

// DENSESETUP loads the strides in bytes and sets P to the first column.
#define DENSESETUP \
	MOVQ stride+24(FP), STR \
	SHLQ $3, STR \
	MOVQ rs+96(FP), RS \
	SHLQ $3, RS \
	LEAQ (RS)(RS*2), RS3 \
	MOVQ ts+104(FP), TS \
	SHLQ $3, TS \
	MOVQ srcStride+64(FP), SS \
	SHLQ $3, SS \
	XORQ P, P

// DENSESTRIP sets PDST to the first group of rows in the strip of
// columns from P, PG to its coefficients and LEFT to the groups of four
// rows.
#define DENSESTRIP \
	MOVQ dst_base+0(FP), PDST \
	LEAQ (PDST)(P*8), PDST \
	MOVQ a_base+72(FP), PG \
	MOVQ rows+112(FP), LEFT \
	SHRQ $2, LEFT
