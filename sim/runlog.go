package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// RunLog appends JSON objects to a JSON Lines file, one whole line per
// write, so that a run killed at any moment leaves only complete lines
// behind: every newline-terminated line parses. (The kernel may cut a
// write of more than a page short when the process is killed during it;
// such a last line has no newline, and OpenRunLog removes it before
// appending.) Lines reach the operating system as they are written, so
// they survive the process; checkpoints and Close also sync them to disk.
// A nil *RunLog discards everything.
type RunLog struct {
	mu   sync.Mutex
	f    *os.File
	path string
}

// OpenRunLog opens (creating if needed) the log file for appending. An
// unterminated last line, left by a process killed while writing it, is
// cut off first. A file that is there must be a run log: a regular file
// that is empty or starts with a run line ({"type":"run"); any other is
// refused and left as it was.
func OpenRunLog(path string) (*RunLog, error) {
	// Read too: resuming and checkpoints read the log's last line back.
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("sim: run log: %w", err)
	}
	if err := isRunLog(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("sim: run log %s: %w", path, err)
	}
	if err := repairTail(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("sim: run log %s: %w", path, err)
	}
	return &RunLog{f: f, path: path}, nil
}

// runLogStart is how every run log starts: RunHeader's first field.
const runLogStart = `{"type":"run"`

// isRunLog reports an error unless f is a regular file that is empty or
// starts as a run log does.
func isRunLog(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return errors.New("not a regular file; not written")
	}
	if fi.Size() == 0 {
		return nil
	}
	b := make([]byte, len(runLogStart))
	n, err := f.ReadAt(b, 0)
	if n < len(b) && err != io.EOF {
		return err
	}
	// A shorter file is a run line cut short, which repairTail removes.
	if string(b[:n]) != runLogStart[:n] {
		return errors.New(`exists and is not a fedaux run log (its first line is not {"type":"run",...}); not written`)
	}
	return nil
}

// Path returns the log's file name.
func (l *RunLog) Path() string {
	if l == nil {
		return ""
	}
	return l.path
}

// Write appends v as one JSON line with a single write call. Values that
// JSON cannot hold (NaN, Inf) make it fail before anything is written.
func (l *RunLog) Write(v any) error {
	if l == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("sim: run log %s: %w", l.path, err)
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.f.Write(b); err != nil {
		return fmt.Errorf("sim: run log %s: %w", l.path, err)
	}
	return nil
}

// start writes the run line that line returns when nothing has been
// written to the log yet (an empty file), and nothing otherwise.
func (l *RunLog) start(line func() ([]byte, error)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	fi, err := l.f.Stat()
	if err != nil {
		return fmt.Errorf("sim: run log %s: %w", l.path, err)
	}
	if fi.Size() > 0 {
		return nil
	}
	b, err := line()
	if err != nil {
		return fmt.Errorf("sim: run log %s: %w", l.path, err)
	}
	if _, err := l.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("sim: run log %s: %w", l.path, err)
	}
	return nil
}

// Close syncs and closes the file.
func (l *RunLog) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.f.Sync(); err != nil {
		l.f.Close()
		return err
	}
	return l.f.Close()
}

// DataFile names an input file and its checksum.
type DataFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// RunHeader is the first line of a run's log: what ran, with every setting.
type RunHeader struct {
	Type      string    `json:"type"` // "run"
	Version   string    `json:"version"`
	Preset    string    `json:"preset"`
	Algo      Algorithm `json:"algo"`
	Rounds    int       `json:"rounds"`
	Epochs    int       `json:"epochs"`
	Hidden    int       `json:"hidden"`
	Layers    int       `json:"layers"`
	LR        float64   `json:"lr"`
	WD        float64   `json:"wd"`
	Dropout   float64   `json:"dropout"`
	Alpha     float64   `json:"alpha"`
	Sigma     float64   `json:"sigma"`
	Score     string    `json:"score"`
	Kernel    Kernel    `json:"kernel"`
	Source    Source    `json:"sim"`
	APVMix    bool      `json:"apv_mix"`
	Partners  float64   `json:"partners,omitempty"`
	Seed      uint64    `json:"seed"`
	Workers   int       `json:"workers"`
	Clients   int       `json:"clients"`
	Partition string    `json:"partition,omitempty"`
	// Metric is what val_acc and test_acc hold (omitted for accuracy).
	Metric  Metric     `json:"metric,omitempty"`
	Data    []DataFile `json:"data,omitempty"`
	Started string     `json:"started"`
	// Extra holds scenario facts (for example non-IID statistics).
	Extra map[string]any `json:"extra,omitempty"`
	// ClientDropout is the probability that a client misses a round (-dropout).
	ClientDropout float64 `json:"client_dropout,omitempty"`
	// Settings holds the run's settings, as Config.Get spells them: the
	// shared ones (Settings lists the names) and the run's method's own,
	// not the other registered methods'. It holds the precision and the
	// method's settings, which the fields above do not, so that a run can
	// be made again from its log alone.
	Settings map[string]string `json:"settings,omitempty"`
}

// Header returns the run line for this engine's settings; the caller fills
// Version, Preset, Partition, Data and Started.
func (e *Engine) Header() RunHeader {
	c := e.cfg
	return RunHeader{
		Type: "run", Algo: c.Algo, Rounds: c.Rounds, Epochs: c.Epochs, Hidden: c.Hidden, Layers: c.layers(),
		LR: c.LR, WD: c.WD, Dropout: c.Dropout, ClientDropout: e.faults.Dropout, Alpha: c.Alpha, Sigma: c.Sigma,
		Score: c.Score.String(), Kernel: c.Kernel, Source: c.Source, APVMix: c.APVMix, Partners: c.Partners,
		Seed: c.Seed, Workers: c.NumWorkers(),
		Clients: len(e.data.Clients), Metric: e.data.Metric,
		Settings: c.settings(),
	}
}

// settings returns the settings of c by their names, as Get spells them:
// the shared ones and the own settings of c's method, not those of the
// other methods registered (a log written by a build with more methods
// replays on one without them).
func (c Config) settings() map[string]string {
	out := map[string]string{}
	for _, key := range Settings() {
		if sharedSetting(key) == nil && !ReadBy(key, c.Algo) {
			continue
		}
		if v, err := c.Get(key); err == nil {
			out[key] = v
		}
	}
	return out
}

// Log returns the engine's run log (nil when it has none).
func (e *Engine) Log() *RunLog { return e.log }

// logWrite writes v to the run log, after the run line (runLine) when
// the engine writes the log's first line: its caller wrote none.
func (e *Engine) logWrite(v any) error {
	if e.log == nil {
		return nil
	}
	if !e.logStarted {
		if err := e.log.start(e.runLine); err != nil {
			return err
		}
		e.logStarted = true
	}
	return e.log.Write(v)
}

// runLine returns the engine's run line: Meta's Header when SetMeta gave
// one, else Header's.
func (e *Engine) runLine() ([]byte, error) {
	if len(e.meta.Header) > 0 {
		return bytes.TrimSpace(e.meta.Header), nil
	}
	return json.Marshal(e.Header())
}
