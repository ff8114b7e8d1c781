package sim

import (
	"strings"
	"testing"
)

// TestCheckModelMemory: settings whose models cannot be held are refused
// by New before anything is allocated, with the sizes that make them so;
// the small federation's are taken.
func TestCheckModelMemory(t *testing.T) {
	data := smallData(t, 3)
	cfg := DefaultConfig()
	cfg.Hidden = 16
	if err := checkModelMemory(&cfg, data); err != nil {
		t.Fatal(err)
	}
	cfg.Hidden = 1 << 40 // more parameters than can be allocated
	_, err := New(cfg, data, nil)
	if err == nil || !strings.Contains(err.Error(), "can be allocated") || !strings.Contains(err.Error(), "hidden 1099511627776") {
		t.Errorf("hidden 2^40: %v", err)
	}
	if physicalMemory() == 0 {
		t.Skip("the machine's memory is not known here")
	}
	cfg.Hidden = 1 << 19 // 2^38 parameters a layer: more than any machine here
	_, err = New(cfg, data, nil)
	if err == nil || !strings.Contains(err.Error(), "GiB") || !strings.Contains(err.Error(), "lower hidden") {
		t.Errorf("hidden 2^19: %v", err)
	}
}
