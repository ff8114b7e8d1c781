//go:build !amd64 || purego

package vec

// mixedBlocks is 0: the portable loops take every element, and the
// functions below, which run the assembly on amd64, are never called.
func mixedBlocks(int) int { return 0 }

func to32Asm([]float32, []float64)                                            {}
func mulTo32Asm([]float32, []float64, []float64)                              {}
func mulPrunedTo32Asm([]float32, []float64, []float64, float64)               {}
func maskGradFrom32Asm([]float64, []float64, []float32, []float64, []float64) {}
func addFrom32Asm([]float64, []float32)                                       {}
func from32Asm([]float64, []float32)                                          {}
func adamF32Asm([]float64, []float64, []float32, []float32, *adamParams32)    {}
