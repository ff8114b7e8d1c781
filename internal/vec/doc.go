// Package vec holds the float64 vector kernels of the hot loops of a
// round: scaled sums (the server's mixing, and RowSums, the products of
// the layers as sums of scaled rows, several rows at a time on strips of
// columns), dot products, elementwise products (masked weights), Adam's
// update and a check for NaN and infinities. Their float32 versions
// (RowSums32, Dot32, Adam32, ...; vec32.go) and the mixed kernels that
// read float64 storage and compute in float32 (To32, MulTo32, AdamF32,
// ...; mixed.go) serve gnn's float32 layers, in AVX-512 and (but for
// Adam32 and MulPruned32) AVX2 versions.
//
// On amd64 the kernels are Go assembly written as gonum writes its own
// (gonum.org/v1/gonum/internal/asm/f64), in an AVX2 and an AVX-512
// version. The version is chosen once, when the package is initialised,
// from golang.org/x/sys/cpu, so that a default build (go build, go run)
// runs the fastest version the CPU has with no flag, build tag or
// environment variable. Other CPUs and architectures, and builds with the
// purego tag, run the portable Go versions, which the tests compare with
// the assembly ones and which Use selects in tests. Go 1.26's
// simd/archsimd is not used: it needs GOEXPERIMENT=simd when building,
// which a default build does not set.
//
// Every version gives the same bits. The elementwise kernels multiply,
// then add, rounding after each operation exactly as the Go expressions
// they document (never a fused multiply-add, which rounds once and
// changes the last digits); square root and division are correctly
// rounded on every path. Dot keeps the summation order of gonum's amd64
// DotUnitary, so replacing floats.Dot by it changes no digit. RowSums
// gives every element the sequence of roundings of AddScaledN, however
// its rows and columns are blocked (docs/performance.md).
package vec
