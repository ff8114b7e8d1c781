package study

import (
	"fmt"
	"math"
)

// MaxSeeds is the most seeds a run or a study takes: far more than a
// result needs (the paper's tables take 3 to 5), and few enough that the
// list of its runs, made before the first, fits in memory (a hundred
// billion seeds ran the program out of memory).
const MaxSeeds = 10000

// CheckSeeds returns nil when n seeds from first, first..first+n-1, are
// allowed: 1 <= n <= MaxSeeds, and the last seed no larger than the
// largest, math.MaxUint64 (a larger one would wrap round to 0).
func CheckSeeds(first uint64, n int) error {
	switch {
	case n < 1 || n > MaxSeeds:
		return fmt.Errorf("seeds = %d, want 1..%d", n, MaxSeeds)
	case first > math.MaxUint64-uint64(n-1):
		return fmt.Errorf("seeds = %d from seed %d: the last would pass the largest seed, %d", n, first, uint64(math.MaxUint64))
	}
	return nil
}
