package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
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
	if m.Steered() && m.LogPath() != "" {
		fmt.Fprintf(&b, "fedaux: the session changed knobs; its run log is %s\nreplay it headless with: fedaux run -replay %s\n", m.LogPath(), m.LogPath())
	}
	for _, f := range m.forkLogs {
		fmt.Fprintf(&b, "fedaux: %s; its run log is %s\nreplay it headless with: fedaux run -replay %s\n", f.what, f.path, f.path)
	}
	return b.String()
}
