package tui

import (
	"fmt"

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
	if w := opts.Stderr; w != nil && m.Steered() && m.LogPath() != "" {
		fmt.Fprintf(w, "fedaux: the session changed knobs; its run log is %s\nreplay it headless with: fedaux run -replay %s\n", m.LogPath(), m.LogPath())
	}
	return err
}
