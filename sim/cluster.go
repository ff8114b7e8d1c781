package sim

import "math"

// GroupSeparation returns the mean similarity between distinct clients of
// the same group and between clients of different groups.
func GroupSeparation(s [][]float64, groups []int) (within, across float64) {
	var nw, na int
	for i := range s {
		for j := range s[i] {
			if i == j {
				continue
			}
			if groups[i] == groups[j] {
				within += s[i][j]
				nw++
			} else {
				across += s[i][j]
				na++
			}
		}
	}
	if nw > 0 {
		within /= float64(nw)
	}
	if na > 0 {
		across /= float64(na)
	}
	return within, across
}

// ClusterSimilarity splits clients into k clusters by average-linkage
// agglomerative clustering of the similarity matrix s (symmetrised):
// repeatedly merge the two clusters with the highest mean pairwise
// similarity, the lowest-numbered pair on ties. Labels are numbered by
// first appearance.
func ClusterSimilarity(s [][]float64, k int) []int {
	n := len(s)
	members := make([][]int, n)
	for i := range members {
		members[i] = []int{i}
	}
	sim := func(a, b []int) float64 {
		var t float64
		for _, i := range a {
			for _, j := range b {
				t += (s[i][j] + s[j][i]) / 2
			}
		}
		return t / float64(len(a)*len(b))
	}
	for len(members) > max(k, 1) {
		bi, bj, best := 0, 1, math.Inf(-1)
		for i := range members {
			for j := i + 1; j < len(members); j++ {
				if v := sim(members[i], members[j]); v > best {
					bi, bj, best = i, j, v
				}
			}
		}
		members[bi] = append(members[bi], members[bj]...)
		members = append(members[:bj], members[bj+1:]...)
	}
	label := make([]int, n)
	for c, m := range members {
		for _, i := range m {
			label[i] = c
		}
	}
	// Renumber by first appearance so equal partitions print alike.
	seen := map[int]int{}
	for i, l := range label {
		if _, ok := seen[l]; !ok {
			seen[l] = len(seen)
		}
		label[i] = seen[l]
	}
	return label
}

// AdjustedRand returns the adjusted Rand index of two labelings (Hubert
// and Arabie 1985): 1 for identical partitions, about 0 for chance. a[i]
// and b[i] label the same item; labelings of different lengths give NaN.
func AdjustedRand(a, b []int) float64 {
	if len(a) != len(b) {
		return math.NaN()
	}
	n := len(a)
	type pair struct{ x, y int }
	cont := map[pair]int{}
	ca, cb := map[int]int{}, map[int]int{}
	for i := range a {
		cont[pair{a[i], b[i]}]++
		ca[a[i]]++
		cb[b[i]]++
	}
	c2 := func(m int) float64 { return float64(m) * float64(m-1) / 2 }
	var index, sa, sb float64
	for _, m := range cont {
		index += c2(m)
	}
	for _, m := range ca {
		sa += c2(m)
	}
	for _, m := range cb {
		sb += c2(m)
	}
	expected := sa * sb / c2(n)
	maxIndex := (sa + sb) / 2
	if maxIndex == expected {
		return 1
	}
	return (index - expected) / (maxIndex - expected)
}
