// The 64-element step of the scaled sums of addscaled_amd64.s and
// mixn_amd64.s: the sums of a block of 64 float64s in Z0-Z7 (cleared by
// strip_amd64.h's ZERO8).

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
