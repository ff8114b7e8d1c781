// The blocks of 64 float64s of the scaled sums of addscaled_amd64.s and
// mixn_amd64.s, summed in Z0-Z7 (cleared by strip_amd64.h's ZERO8):
// the step of one term, and the loads and stores of a block.

// ADDSCALED64 adds the coefficient at (A) times the 64 float64s at
// X+OFF to the sums Z0-Z7, each product rounded before its sum (the sum
// the first operand of the addition); it uses Z8-Z16.
#define ADDSCALED64(A, X, OFF) \
	VBROADCASTSD (A), Z8 \
	VMULPD       (X)(OFF*1), Z8, Z9 \
	VMULPD       64(X)(OFF*1), Z8, Z10 \
	VMULPD       128(X)(OFF*1), Z8, Z11 \
	VMULPD       192(X)(OFF*1), Z8, Z12 \
	VMULPD       256(X)(OFF*1), Z8, Z13 \
	VMULPD       320(X)(OFF*1), Z8, Z14 \
	VMULPD       384(X)(OFF*1), Z8, Z15 \
	VMULPD       448(X)(OFF*1), Z8, Z16 \
	VADDPD       Z9, Z0, Z0 \
	VADDPD       Z10, Z1, Z1 \
	VADDPD       Z11, Z2, Z2 \
	VADDPD       Z12, Z3, Z3 \
	VADDPD       Z13, Z4, Z4 \
	VADDPD       Z14, Z5, Z5 \
	VADDPD       Z15, Z6, Z6 \
	VADDPD       Z16, Z7, Z7

// LOAD64 loads the 64 float64s at B+O into Z0-Z7.
#define LOAD64(B, O) \
	VMOVUPD (B)(O*1), Z0 \
	VMOVUPD 64(B)(O*1), Z1 \
	VMOVUPD 128(B)(O*1), Z2 \
	VMOVUPD 192(B)(O*1), Z3 \
	VMOVUPD 256(B)(O*1), Z4 \
	VMOVUPD 320(B)(O*1), Z5 \
	VMOVUPD 384(B)(O*1), Z6 \
	VMOVUPD 448(B)(O*1), Z7

// STORE64 stores Z0-Z7 to the 64 float64s at B+O.
#define STORE64(B, O) \
	VMOVUPD Z0, (B)(O*1) \
	VMOVUPD Z1, 64(B)(O*1) \
	VMOVUPD Z2, 128(B)(O*1) \
	VMOVUPD Z3, 192(B)(O*1) \
	VMOVUPD Z4, 256(B)(O*1) \
	VMOVUPD Z5, 320(B)(O*1) \
	VMOVUPD Z6, 384(B)(O*1) \
	VMOVUPD Z7, 448(B)(O*1)
