package sim_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// TestNewReportsFirstBadClient checks that New, which builds the clients
// on its workers, reports the first client that cannot be built, in
// client order, whatever the number of workers.
func TestNewReportsFirstBadClient(t *testing.T) {
	for _, workers := range []int{1, 2, 8} {
		d := sim.SmallData(t, 1)
		for _, k := range []int{2, 5} { // no training node
			c := *d.Clients[k]
			c.Roles = make([]graphio.Role, len(c.Roles))
			for i := range c.Roles {
				c.Roles[i] = graphio.Test
			}
			d.Clients[k] = &c
		}
		cfg := sim.SmallConfig(methods.FedAux)
		cfg.Workers = workers
		_, err := sim.New(cfg, d, nil)
		want := fmt.Sprintf("client %d has no training node", d.Clients[2].ID)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("workers=%d: error %v, want one with %q", workers, err, want)
		}
	}
}

// hookOrder is FedAvg whose clients' hooks record, in made, the index
// each was asked for.
type hookOrder struct {
	sim.Strategy
	made *[]int
}

func (h hookOrder) ClientHook(client int) sim.ClientHook {
	*h.made = append(*h.made, client)
	return nil
}

// TestNewHooksInClientOrder checks that New asks a ClientHooker for its
// hooks once a client, in client order and from one goroutine (the race
// detector would see two), when it builds the clients on several.
func TestNewHooksInClientOrder(t *testing.T) {
	var made []int
	register(t, sim.Method{Name: "hookorder", Describe: "FedAvg, its hooks' order recorded",
		New: func(cfg *sim.Config) (sim.Strategy, error) {
			st, err := newOf(methods.FedAvg)(cfg)
			return hookOrder{Strategy: st, made: &made}, err
		}})
	d := sim.SmallData(t, 1)
	cfg := sim.SmallConfig("hookorder")
	cfg.Workers = 4
	if _, err := sim.New(cfg, d, nil); err != nil {
		t.Fatal(err)
	}
	if len(made) != len(d.Clients) {
		t.Fatalf("%d hooks for %d clients", len(made), len(d.Clients))
	}
	for i, c := range made {
		if c != i {
			t.Fatalf("hooks made for clients %v, want 0..%d in order", made, len(d.Clients)-1)
		}
	}
}

// TestNewRefusesClientWithoutRole: a client with no validation or no test
// node is refused by name (its accuracy over no node counted as 0 in the
// mean over clients).
func TestNewRefusesClientWithoutRole(t *testing.T) {
	for _, missing := range []graphio.Role{graphio.Val, graphio.Test} {
		d := sim.SmallData(t, 1)
		c := *d.Clients[3]
		c.Roles = slices.Clone(c.Roles)
		for i, r := range c.Roles {
			if r == missing {
				c.Roles[i] = graphio.Train
			}
		}
		d.Clients[3] = &c
		_, err := sim.New(sim.SmallConfig(methods.FedAux), d, nil)
		name := map[graphio.Role]string{graphio.Val: "validation", graphio.Test: "test"}[missing]
		want := fmt.Sprintf("client %d has no %s node", c.ID, name)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want one with %q", err, want)
		}
		// The advice names keys a scenario has: split.train and
		// split.test, the rest validating (it said "raise split.val").
		hint := map[graphio.Role]string{graphio.Val: "lower split.train or split.test (the rest validates)", graphio.Test: "raise split.test"}[missing]
		if err == nil || !strings.Contains(err.Error(), hint) || strings.Contains(err.Error(), "split.val") {
			t.Errorf("error %v, want one advising %q", err, hint)
		}
	}
}

// TestNewPartnersOverClients checks that New refuses more partners than
// clients as a SettingError in the library's words.
func TestNewPartnersOverClients(t *testing.T) {
	d := sim.SmallData(t, 1)
	c := sim.SmallConfig(methods.FedAux)
	c.Partners = 100
	_, err := sim.New(c, d, nil)
	want := fmt.Sprintf("sim: partners = 100, want <= %d, the number of clients", len(d.Clients))
	var se *sim.SettingError
	if !errors.As(err, &se) || se.Key != "partners" || err.Error() != want {
		t.Errorf("New = %v, want a SettingError %q", err, want)
	}
}
