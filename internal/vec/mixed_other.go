//go:build !amd64 || purego

package vec

// mixedBlocks is 0: the portable loops take every element, and the
// functions below, which the assembly defines on amd64, are never called.
func mixedBlocks(int) int { return 0 }

func to32AVX512([]float32, []float64)                                            {}
func mulTo32AVX512([]float32, []float64, []float64)                              {}
func mulPrunedTo32AVX512([]float32, []float64, []float64, float64)               {}
func maskGradFrom32AVX512([]float64, []float64, []float32, []float64, []float64) {}
func addFrom32AVX512([]float64, []float32)                                       {}
func adamF32AVX512([]float64, []float64, []float32, []float32, *adamParams32)    {}
