// Registers and macros of the RowSums kernels (rowsums_amd64.s,
// rowsumsat_amd64.s).

// Registers of rowSumsAVX512, rowSums8AVX512 and rowSumsAtAVX512.
#define STR DX   // stride of dst in bytes (rowSumsAtAVX512: &off[row])
#define PSRC SI  // &src[P]
#define PDST DI  // &dst[row*stride + P] of the current row or group
#define NP R12   // &n[row]
#define LEFT R13 // rows left in the strip
#define P R14    // first column of the strip

// TERM4 adds one term, at T (Off, A), to the four accumulators of a
// row: A0 (columns P..P+7, lanes under K1), A1 (P+8..P+15, under K2), A2
// (under K3) and A3 (under K4). Each product is A*src (the coefficient first, as in
// addScaledNAVX512) and each sum acc+product, both rounded. Z27 holds
// the coefficient and Z28-Z31 the products.
#define TERM4(T, A0, A1, A2, A3) \
	MOVQ         (T), AX \
	VBROADCASTSD 8(T), Z27 \
	VMULPD.Z     0(PSRC)(AX*8), Z27, K1, Z28 \
	VMULPD.Z     64(PSRC)(AX*8), Z27, K2, Z29 \
	VMULPD.Z     128(PSRC)(AX*8), Z27, K3, Z30 \
	VMULPD.Z     192(PSRC)(AX*8), Z27, K4, Z31 \
	VADDPD       Z28, A0, A0 \
	VADDPD       Z29, A1, A1 \
	VADDPD       Z30, A2, A2 \
	VADDPD       Z31, A3, A3 \
	ADDQ         $16, T

// TERM1 is TERM4 for one accumulator, A0 (columns P..P+7, lanes under
// K1); Z30 holds the coefficient and Z31 the product.
#define TERM1(T, A0) \
	MOVQ         (T), AX \
	VBROADCASTSD 8(T), Z30 \
	VMULPD.Z     0(PSRC)(AX*8), Z30, K1, Z31 \
	VADDPD       Z31, A0, A0 \
	ADDQ         $16, T
