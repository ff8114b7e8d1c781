package tui

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	tea "charm.land/bubbletea/v2"

	"github.com/fedaux/fedaux/sim"
)

// Run opens the console on the terminal and returns when the user quits,
// after the work in flight has stopped.
func Run(opts Options, progOpts ...tea.ProgramOption) error {
	m, err := New(opts)
	if err != nil {
		return err
	}
	defer m.Close()
	p := tea.NewProgram(m, append([]tea.ProgramOption{tea.WithContext(m.drv.ctx)}, progOpts...)...)
	// A terminal that closes (SIGHUP) quits as q does, so that the run
	// log gets its summary line (the process ended without one).
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		if _, ok := <-hup; ok {
			p.Quit()
		}
	}()
	defer func() { signal.Stop(hup); close(hup) }()
	_, err = p.Run()
	m.Close()
	if w := opts.Stderr; w != nil {
		fmt.Fprint(w, m.farewell())
	}
	return err
}

// farewell is what the console says after its screen has closed: where
// the run log of a session that changed knobs is, and the run log of
// every fork's branch B, each with the command that replays it.
func (m *Model) farewell() string {
	var b strings.Builder
	if m.exportDir != "" {
		fmt.Fprintf(&b, "fedaux: quit before the export to %s, which waited for the round in flight: nothing exported\n", m.exportDir)
	}
	if what := m.steeredWhat(); what != "" && m.LogPath() != "" {
		fmt.Fprintf(&b, "fedaux: the session %s; its run log is %s\nreplay it headless with: fedaux run -replay %s%s\n", what, m.LogPath(), m.LogPath(), replayRun(m.LogPath(), m.steered || m.switched))
	}
	for _, f := range m.forkLogs {
		fmt.Fprintf(&b, "fedaux: %s; its run log is %s\nreplay it headless with: fedaux run -replay %s\n", f.what, f.path, f.path)
	}
	return b.String()
}

// steeredWhat says how the session steered the runs of its own log:
// "ran an edited scenario", "changed knobs", "switched algorithm" or
// several; "" when it did none.
func (m *Model) steeredWhat() string {
	var what []string
	if m.edited {
		what = append(what, "ran an edited scenario")
	}
	if m.steered {
		what = append(what, "changed knobs")
	}
	if m.switched {
		what = append(what, "switched algorithm")
	}
	return strings.Join(what, " and ")
}

// replayRun returns the -replay-run flag that picks, in the run log at
// path, the last run with a round (and, when steered, a knob change or a
// switch of algorithm), when that is not the log's last run (a restart
// or a new preset at the end starts a run with no round, which replay
// refuses); "" otherwise.
func replayRun(path string, steered bool) string {
	runs, _, err := sim.ReadRunLog(path)
	if err != nil {
		return ""
	}
	for i := len(runs) - 1; i >= 0; i-- {
		if len(runs[i].Reports) > 0 && (!steered || len(runs[i].Controls)+len(runs[i].Switches) > 0) {
			if i == len(runs)-1 {
				return ""
			}
			return fmt.Sprintf(" -replay-run %d", i+1)
		}
	}
	return ""
}
