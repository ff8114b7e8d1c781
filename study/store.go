package study

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/fedaux/fedaux/sim"
)

// A Store keeps finished cells as JSON Lines in a directory. It reads
// every results file there (results.jsonl and each shard's
// results-shard-I-of-N.jsonl) and appends to its own, one line a cell
// with a single write, synced, under an advisory lock, so that a process
// killed at any moment leaves whole lines and at most one torn last line,
// which reading skips (that cell is computed again), and so that
// processes writing into one directory at once corrupt nothing.
//
// A Store with an empty directory keeps its records in memory only.
type Store struct {
	dir  string
	file string // the file Append writes, a base name in dir

	mu   sync.Mutex
	recs map[string]*Record
	list []*Record // in the order read or appended
	// Skipped counts the lines read that hold no result the store
	// takes, by file (see Skipped).
	Skipped map[string]SkippedLines
}

// SkippedLines counts the lines of a results file that a store does not
// take as results.
type SkippedLines struct {
	// Torn lines do not parse: a line cut short by a crash.
	Torn int
	// Incomplete lines parse but are no finished run (Record.Complete).
	Incomplete int
	// Methods counts the results of methods this build does not have
	// (an outside method's, see docs/methods.md), by name.
	Methods map[string]int
	// Repeated lines hold a key that an earlier line holds (in this file
	// or a file before it in name order); the first is the result.
	Repeated int
}

// Any reports whether a line was skipped.
func (k SkippedLines) Any() bool {
	return k.Torn > 0 || k.Incomplete > 0 || len(k.Methods) > 0 || k.Repeated > 0
}

// ResultsFile is the results file of an unsharded run.
const ResultsFile = "results.jsonl"

// OpenStore reads the results in dir and returns a store that appends to
// file (ResultsFile or a Shard's File) there, which must be a regular
// file if it is there ("" for a store that is only read). The directory
// is created.
func OpenStore(dir, file string) (*Store, error) {
	s := &Store{dir: dir, file: file, recs: map[string]*Record{}, Skipped: map[string]SkippedLines{}}
	if dir == "" {
		return s, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	if file != "" {
		// Refused now, not once the first run is computed and cannot
		// be appended.
		if fi, err := os.Stat(s.Path()); err == nil && fi.IsDir() {
			return nil, fmt.Errorf("study: %s: is a directory, not a results file", s.Path())
		} else if err == nil && !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("study: %s: not a regular file", s.Path())
		}
	}
	return s, s.Reload()
}

// MemoryStore returns a store that keeps recs in memory.
func MemoryStore(recs ...*Record) *Store {
	s, _ := OpenStore("", "")
	for _, r := range recs {
		s.add(r)
	}
	return s
}

// Path returns the file Append writes ("" for a memory store).
func (s *Store) Path() string {
	if s.dir == "" {
		return ""
	}
	return filepath.Join(s.dir, s.file)
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// resultFiles lists the results files in dir, sorted.
func resultFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if !e.IsDir() && strings.HasPrefix(n, "results") && strings.HasSuffix(n, ".jsonl") {
			out = append(out, filepath.Join(dir, n))
		}
	}
	sort.Strings(out)
	return out, nil
}

// Reload reads every results file in the directory again (others may
// have appended), keeping the records already known, and counts anew
// the lines it skips (Skipped).
func (s *Store) Reload() error {
	if s.dir == "" {
		return nil
	}
	files, err := resultFiles(s.dir)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	skipped := map[string]SkippedLines{}
	seen := map[string]bool{} // the keys of the lines read so far
	for _, path := range files {
		recs, sk, err := readRecords(path)
		if err != nil {
			return err
		}
		for _, r := range recs {
			if seen[r.Key] {
				sk.Repeated++
				continue
			}
			seen[r.Key] = true
			s.addLocked(r)
		}
		skipped[filepath.Base(path)] = sk
	}
	s.Skipped = skipped
	return nil
}

func (s *Store) add(r *Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addLocked(r)
}

// addLocked keeps the first record of each key.
func (s *Store) addLocked(r *Record) {
	if _, ok := s.recs[r.Key]; ok {
		return
	}
	s.recs[r.Key] = r
	s.list = append(s.list, r)
}

// Get returns the record with the given key.
func (s *Store) Get(key string) (*Record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[key]
	return r, ok
}

// Stored returns how many of cells the store holds a result of.
func (s *Store) Stored(cells []*Cell) int {
	n := 0
	for _, c := range cells {
		if _, ok := s.Get(c.Key()); ok {
			n++
		}
	}
	return n
}

// Records returns every record, in the order read or appended.
func (s *Store) Records() []*Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Record(nil), s.list...)
}

// Append stores r, which must be Complete, and, for a store on disk,
// appends it to the store's file as one synced line.
func (s *Store) Append(r *Record) error {
	if err := r.Complete(); err != nil {
		return fmt.Errorf("study: result %s of %s %s: %w", r.Key, r.Scenario, r.Algo, err)
	}
	if s.dir != "" {
		if err := appendLine(s.Path(), r); err != nil {
			return err
		}
	}
	s.add(r)
	return nil
}

// readRecords reads the Complete records in path, in order, and counts
// the lines it skips (but for Repeated ones, which its caller counts).
func readRecords(path string) (recs []*Record, sk SkippedLines, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, sk, nil
	}
	if err != nil {
		return nil, sk, fmt.Errorf("study: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var r Record
		if err := json.Unmarshal(line, &r); err != nil {
			// A whole line whose algorithm this build lacks is an
			// outside method's result, not a line cut short.
			var other struct {
				Key  string `json:"key"`
				Algo string `json:"algo"`
			}
			if json.Unmarshal(line, &other) == nil && other.Key != "" && other.Algo != "" {
				if _, err := sim.ParseAlgorithm(other.Algo); err != nil {
					if sk.Methods == nil {
						sk.Methods = map[string]int{}
					}
					sk.Methods[other.Algo]++
					continue
				}
			}
			sk.Torn++
			continue
		}
		if r.Complete() != nil {
			sk.Incomplete++
			continue
		}
		recs = append(recs, &r)
	}
	if err := sc.Err(); err != nil {
		return recs, sk, fmt.Errorf("study: %s: %w", path, err)
	}
	return recs, sk, nil
}

// appendLine appends v to path as one JSON line with a single write and
// syncs the file, holding an exclusive lock on it meanwhile. A file that
// does not end in a newline (a line torn by a crash) gets one first, so
// the torn line stays alone on its line.
func appendLine(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("study: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("study: %w", err)
	}
	defer f.Close()
	if err := lockFile(f); err != nil {
		return fmt.Errorf("study: lock %s: %w", path, err)
	}
	defer unlockFile(f)
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err != nil && err != io.EOF {
			return fmt.Errorf("study: %s: %w", path, err)
		}
		if last[0] != '\n' {
			b = append([]byte{'\n'}, b...)
		}
	}
	b = append(b, '\n')
	if _, err := f.Write(b); err != nil {
		return fmt.Errorf("study: %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("study: %s: %w", path, err)
	}
	return nil
}
