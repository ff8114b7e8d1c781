package sim

import (
	"strings"
	"testing"
)

// TestNoMethodRegistered: a program that registered no method (it did
// not import package methods) is told which import it lacks, not "want
// one of " and an empty list.
func TestNoMethodRegistered(t *testing.T) {
	registry.Lock()
	methods, order := registry.methods, registry.order
	registry.methods, registry.order = nil, nil
	registry.Unlock()
	defer func() {
		registry.Lock()
		registry.methods, registry.order = methods, order
		registry.Unlock()
	}()
	c := DefaultConfig()
	for _, err := range []error{c.Validate(), c.Set("algo", "fedaux")} {
		if err == nil || !strings.Contains(err.Error(), `import _ "github.com/fedaux/fedaux/methods"`) {
			t.Errorf("with no method registered: %v", err)
		}
	}
}
