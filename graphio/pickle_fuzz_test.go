package graphio

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// pickleSeeds are small pickles in the shapes of the Planetoid files.
var pickleSeeds = [][]byte{
	// defaultdict(list, {0: [1, 2], 1: [0], 2: [0]})
	[]byte("\x80\x02ccollections\ndefaultdict\nq\x01c__builtin__\nlist\nq\x02\x85Rq\x03(K\x00]q\x04(K\x01K\x02eK\x01]q\x05K\x00aK\x02]q\x06K\x00au."),
	// a 2x2 one-hot int32 array
	[]byte("\x80\x02cnumpy.core.multiarray\n_reconstruct\nq\x01cnumpy\nndarray\nq\x02K\x00\x85U\x01b\x87Rq\x03(K\x01K\x02K\x02\x86cnumpy\ndtype\nq\x04U\x02i4K\x00K\x01\x87Rq\x05(K\x03U\x01<NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb\x89U\x10\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00tb."),
	[]byte("\x80\x02}q\x01(U\x01aK\x01U\x01b]q\x02(G?\xf0\x00\x00\x00\x00\x00\x00\x8a\x02\xff\x7feu."),
	[]byte("\x80\x02h\x05."),
	[]byte("(((((t."),
}

// FuzzPlanetoidPickle feeds arbitrary bytes to the readers of the three
// pickled kinds of Planetoid file: any input is a value or an error,
// never a panic. (TestPickleAllocationBounded checks the allocation
// bound: measured inside a fuzz worker, the engine's own allocations make
// it flaky.)
func FuzzPlanetoidPickle(f *testing.F) {
	for _, s := range pickleSeeds {
		f.Add(s)
	}
	// The real files when the data is here (small ones only: the fuzzer
	// mutates each seed many times).
	if dir := os.Getenv("FEDAUX_DATA"); dir != "" {
		for _, part := range []string{"y", "x", "test.index"} {
			if b, err := os.ReadFile(filepath.Join(dir, "raw", "planetoid", "ind.cora."+part)); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		readAllKinds(data)
	})
}

func readAllKinds(data []byte) {
	_, _ = parsePlanetoidMatrix(data)
	_, _, _ = parsePlanetoidLabels(data)
	_, _, _ = parsePlanetoidGraph(data)
	_, _ = parseIndexFile(data)
}

// TestPickleAllocationBounded checks that what the readers allocate stays
// within a fixed multiple of the input's size (128 bytes per input byte
// and reader: a value on the stack costs its box, its slot and the
// slot's share of the stack's growth), on the seeds, the real files and
// inputs built to declare huge sizes. A declared size never counts.
func TestPickleAllocationBounded(t *testing.T) {
	inputs := slices.Clone(pickleSeeds)
	repeat := func(s string, n int) []byte { return []byte(strings.Repeat(s, n)) }
	inputs = append(inputs,
		[]byte("T\xff\xff\xff\x7f"),                      // a string of 2 GiB declared
		[]byte("\x8a\xff"),                               // a LONG1 of 255 bytes declared
		append(repeat("]", 60000), '.'),                  // many lists on the stack
		append(repeat("]r\x00\x00\x00\x00", 10000), '.'), // memo
		append([]byte("("), append(repeat("N", 70000), 't')...),
	)
	// A label array declaring 2^31 rows of 0 columns, in Fortran order.
	inputs = append(inputs, []byte("\x80\x02cnumpy.core.multiarray\n_reconstruct\nq\x01cnumpy\nndarray\nq\x02K\x00\x85U\x01b\x87Rq\x03(K\x01J\xff\xff\xff\x7fK\x00\x86cnumpy\ndtype\nq\x04U\x02i4K\x00K\x01\x87Rq\x05(K\x03U\x01<NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb\x88U\x00tb."))
	if dir := os.Getenv("FEDAUX_DATA"); dir != "" {
		for _, part := range []string{"y", "x", "tx", "graph"} {
			if b, err := os.ReadFile(filepath.Join(dir, "raw", "planetoid", "ind.cora."+part)); err == nil {
				inputs = append(inputs, b)
			}
		}
	}
	for i, data := range inputs {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		readAllKinds(data)
		runtime.ReadMemStats(&after)
		if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(4*128*len(data)+1<<20); got > limit {
			t.Errorf("input %d: %d bytes made the readers allocate %d bytes (limit %d)", i, len(data), got, limit)
		}
	}
}

// TestUnpickleErrors checks a few malformed pickles.
func TestUnpickleErrors(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"", "truncated"},
		{"\x80\x05N.", "pickle protocol 5"},
		{"N.N", "1 bytes after STOP"},
		{"T\xff\xff\xff\x7fab", "truncated"},
		{"h\x01.", "memo entry 1 not set"},
		{"(.", "found a mark"},
		{"K\x01K\x02R.", "call of a int"},
		{"\xff", "unsupported opcode 0xff"},
		{"]q\x01h\x01a.", ""}, // a list that holds itself: fine to read
	} {
		_, err := unpickle([]byte(tc.in))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
	// A self-containing list is not a dict of lists (and printing it in
	// an error must not recurse).
	if _, _, err := parsePlanetoidGraph([]byte("]q\x01h\x01a.")); err == nil {
		t.Error("a list read as a graph")
	}
}
