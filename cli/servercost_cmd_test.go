package cli

import (
	"io"
	"strings"
	"testing"
)

func TestServerCostErrorsNameTheFlag(t *testing.T) {
	for _, args := range [][]string{{"-reps", "0"}, {"-rounds", "0"}, {"-warm", "-1"}} {
		err := serverCostCmd(args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("servercost %v: error %v, want one naming %s", args, err, args[0])
		}
	}
	if err := serverCostCmd([]string{"extra"}, io.Discard, io.Discard); err == nil {
		t.Error("servercost extra: want an error")
	}
}
