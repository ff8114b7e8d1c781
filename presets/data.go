package presets

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fedaux/fedaux/sim"
)

// DataDir returns the data directory: flagValue if set, else the
// environment variable FEDAUX_DATA, else the per-user data directory
// ($XDG_DATA_HOME/fedaux or ~/.local/share/fedaux), which `fedaux data
// get` fills (docs/data.md).
func DataDir(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	if d := os.Getenv("FEDAUX_DATA"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "fedaux")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "share", "fedaux")
	}
	return "data"
}

// Checksum returns the file's path and sha256 for the run log.
func Checksum(path string) (sim.DataFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return sim.DataFile{}, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return sim.DataFile{}, fmt.Errorf("%s: %w", path, err)
	}
	return sim.DataFile{Path: path, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// ParseBytes reads a size such as 1700MiB, 2GiB, 1.5GB or 500000000: at
// least one byte, and fewer than 2^63 (an int64).
func ParseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   float64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}, {"", 1}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(num, 64)
			if err != nil || v <= 0 {
				break
			}
			// NaN, Inf and a size past int64 converted to a negative
			// limit (none), and half a byte to 0.
			if b := v * u.mult; !(b >= 1 && b < 1<<63) {
				return 0, fmt.Errorf("%q: want a size of at least 1 byte and below 2^63 bytes, such as 1700MiB or 2GiB", s)
			}
			return int64(v * u.mult), nil
		}
	}
	return 0, fmt.Errorf("%q: want a positive size such as 1700MiB or 2GiB", s)
}
