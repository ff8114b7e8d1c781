// Macros of the float32 RowSums kernels (rowsums32_amd64.s): those of
// rowsums_amd64.h on 16 float32 lanes a register. The registers are
// rowsums_amd64.h's.

#include "rowsums_amd64.h"

// TERM4S adds one term, at T (a Term32: Off, 32 bits, then A), to the
// four accumulators of a row: A0 (columns P..P+15, lanes under K1), A1
// (P+16..P+31, under K2), A2 (under K3) and A3 (under K4). Each product
// is A*src (the coefficient first, as in addScaledNAVX512) and each sum
// acc+product, both rounded. Z27 holds the coefficient and Z28-Z31 the
// products.
#define TERM4S(T, A0, A1, A2, A3) \
	MOVLQSX      (T), AX \
	VBROADCASTSS 4(T), Z27 \
	VMULPS.Z     0(PSRC)(AX*4), Z27, K1, Z28 \
	VMULPS.Z     64(PSRC)(AX*4), Z27, K2, Z29 \
	VMULPS.Z     128(PSRC)(AX*4), Z27, K3, Z30 \
	VMULPS.Z     192(PSRC)(AX*4), Z27, K4, Z31 \
	VADDPS       Z28, A0, A0 \
	VADDPS       Z29, A1, A1 \
	VADDPS       Z30, A2, A2 \
	VADDPS       Z31, A3, A3 \
	ADDQ         $8, T

// TERM1S is TERM4S for one accumulator, A0 (columns P..P+15, lanes under
// K1); Z30 holds the coefficient and Z31 the product.
#define TERM1S(T, A0) \
	MOVLQSX      (T), AX \
	VBROADCASTSS 4(T), Z30 \
	VMULPS.Z     0(PSRC)(AX*4), Z30, K1, Z31 \
	VADDPS       Z31, A0, A0 \
	ADDQ         $8, T
