package cli

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

// TestUsageListsEveryCommand checks that the usage text has one line per
// command and that `fedaux help NAME` gives each command's usage, as
// its -h does.
func TestUsageListsEveryCommand(t *testing.T) {
	u := usage()
	for _, c := range commands {
		n := 0
		for _, line := range strings.Split(u, "\n") {
			if strings.HasPrefix(line, "  "+c.name+" ") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("usage has %d lines for %s, want 1:\n%s", n, c.name, u)
		}
		var stdout, stderr bytes.Buffer
		err := helpCmd([]string{c.name}, &stdout, &stderr)
		if err != nil && !errors.Is(err, flag.ErrHelp) {
			t.Errorf("help %s: %v", c.name, err)
		}
		if c.name == "scenario" || c.name == "data" { // their own usage: subcommands
			if !strings.Contains(stderr.String(), "fedaux "+c.name+" ") {
				t.Errorf("help %s:\n%s", c.name, stderr.String())
			}
			continue
		}
		if want := "usage: fedaux " + c.name; !strings.HasPrefix(stderr.String(), want) {
			t.Errorf("help %s begins %.60q, want %q", c.name, stderr.String(), want)
		}
		if c.run != nil {
			var h bytes.Buffer
			if err := c.run([]string{"-h"}, &stdout, &h); !errors.Is(err, flag.ErrHelp) {
				t.Errorf("%s -h: %v, want flag.ErrHelp", c.name, err)
			}
			if h.String() != stderr.String() {
				t.Errorf("%s -h and help %s differ", c.name, c.name)
			}
		}
	}
	if err := helpCmd([]string{"nope"}, &bytes.Buffer{}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "tui, run") {
		t.Errorf("help nope: %v, want an error listing the commands", err)
	}
}
