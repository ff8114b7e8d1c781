package sim_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// register registers m for the rest of the test.
func register(t *testing.T, m sim.Method) {
	t.Helper()
	sim.Register(m)
	t.Cleanup(func() { sim.Unregister(m.Name) })
}

func registerPanic(m sim.Method) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r) // nothing was registered
		}
	}()
	sim.Register(m)
	sim.Unregister(m.Name)
	return ""
}

func TestRegisterRefusesBadDescriptors(t *testing.T) {
	ok := newOf(methods.FedAvg)
	for _, c := range []struct {
		m    sim.Method
		want string
	}{
		{sim.Method{Name: "Bad-Name", Describe: "x", New: ok}, "lower-case"},
		{sim.Method{Name: "nodesc", New: ok}, "no Describe"},
		{sim.Method{Name: "nonew", Describe: "x"}, "no New"},
		{sim.Method{Name: methods.FedAvg, Describe: "x", New: ok}, "registered twice"},
		{sim.Method{Name: "usesbad", Describe: "x", New: ok, Uses: []string{"sigma"}}, `Uses "sigma"`},
		{sim.Method{Name: "shared", Describe: "x", New: ok, Settings: []sim.Setting{{Key: "lr", Type: sim.Float, Default: "0.1", Doc: "x"}}}, "is a shared setting"},
		{sim.Method{Name: "notype", Describe: "x", New: ok, Settings: []sim.Setting{{Key: "k", Default: "1"}}}, "no Type"},
		{sim.Method{Name: "noncanon", Describe: "x", New: ok, Settings: []sim.Setting{{Key: "k", Type: sim.Float, Default: "0.50", Doc: "x"}}}, "not canonical"},
		{sim.Method{Name: "badchoice", Describe: "x", New: ok, Settings: []sim.Setting{{Key: "k", Type: sim.Choice, Default: "a", Doc: "x"}}}, "without Choices"},
		{sim.Method{Name: "nodoc", Describe: "x", New: ok, Settings: []sim.Setting{{Key: "k", Type: sim.Float, Default: "1"}}}, "setting k: no Doc"},
		{sim.Method{Name: "badcheck", Describe: "x", New: ok, Settings: []sim.Setting{{Key: "k", Type: sim.Float, Default: "-1", Check: sim.NonNegative, Doc: "x"}}}, "Default -1, want"},
		{sim.Method{Name: "othermu", Describe: "x", New: ok, Settings: []sim.Setting{{Key: "eps1", Type: sim.Float, Default: "0.5", Doc: "x"}}}, "declared differently by [gcfl]"},
	} {
		if got := registerPanic(c.m); !strings.Contains(got, c.want) {
			t.Errorf("%s: panic %q, want it to say %q", c.m.Name, got, c.want)
		}
	}
	if _, ok := sim.LookupMethod("nodesc"); ok {
		t.Error("a refused method is registered")
	}
}

// TestMethodSettingsEverywhere registers a method with a setting of its
// own and checks that the setting is one like the built-ins': listed,
// typed, canonical, validated, described, and in the fingerprint of its
// method only.
func TestMethodSettingsEverywhere(t *testing.T) {
	before := sim.DefaultConfig()
	fps := map[sim.Algorithm]string{}
	for _, a := range sim.Algorithms() {
		c := before
		c.Algo = a
		fps[a] = c.Fingerprint()
	}
	register(t, sim.Method{Name: "probe_method", Describe: "a test method", Display: "Probe", Uses: []string{"alpha"},
		Settings: []sim.Setting{{Key: "probe_k", Type: sim.Float, Default: "0.25", Check: sim.NonNegative, Doc: "probe_method: a coefficient"}},
		New:      newOf(methods.FedAvg)})
	if !slices.Contains(sim.Algorithms(), "probe_method") || sim.Algorithm("probe_method").Display() != "Probe" {
		t.Fatalf("algorithms %v", sim.Algorithms())
	}
	if _, err := sim.ParseAlgorithm("probe_method"); err != nil {
		t.Error(err)
	}
	if s := sim.Settings(); s[len(s)-1] != "probe_k" {
		t.Errorf("settings %v: want probe_k last", s)
	}
	if !slices.Contains(sim.NumericSettings(), "probe_k") {
		t.Error("probe_k is not numeric")
	}
	if got := sim.AlgorithmSettings("probe_method"); !slices.Equal(got, []string{"alpha", "probe_k"}) {
		t.Errorf("AlgorithmSettings = %v", got)
	}
	if sim.Describe("probe_k") != "probe_method: a coefficient" {
		t.Errorf("Describe = %q", sim.Describe("probe_k"))
	}
	c := sim.DefaultConfig()
	if v, _ := c.Get("probe_k"); v != "0.25" || c.Options.Float("probe_k") != 0.25 {
		t.Errorf("default %q", v)
	}
	d := c
	if err := d.Set("probe_k", " 0.50"); err != nil {
		t.Fatal(err)
	}
	if v, _ := d.Get("probe_k"); v != "0.5" {
		t.Errorf("canonical value %q, want 0.5", v)
	}
	if v, _ := c.Get("probe_k"); v != "0.25" {
		t.Errorf("setting a copy changed the original: %q", v)
	}
	for _, a := range sim.Algorithms() {
		if a == "probe_method" {
			continue
		}
		d.Algo = a
		if d.Fingerprint() != fps[a] {
			t.Errorf("%s: fingerprint changed by probe_k:\n%s\n%s", a, d.Fingerprint(), fps[a])
		}
	}
	c.Algo, d.Algo = "probe_method", "probe_method"
	if !strings.Contains(c.Fingerprint(), "probe_k=0.25") || !strings.Contains(c.Fingerprint(), "alpha=10") ||
		c.Fingerprint() == d.Fingerprint() {
		t.Errorf("probe fingerprints %s, %s", c.Fingerprint(), d.Fingerprint())
	}
	if err := d.Set("probe_k", "x"); err == nil || !strings.Contains(err.Error(), "probe_k = x, want a number") {
		t.Errorf("Set x: %v", err)
	}
	var se *sim.SettingError
	if err := d.Set("probe_k", "-2"); err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(); !errors.As(err, &se) || se.Key != "probe_k" || se.Want != "a finite value >= 0" {
		t.Errorf("Validate = %v", err)
	}
	if d := sim.DiffConfig(c, d); !slices.Equal(d, []string{"probe_k: 0.25, not -2"}) {
		t.Errorf("DiffConfig = %v", d)
	}
}

// hooked is a test method: FedAvg whose server broadcasts a vector of its
// state, and whose clients add a constant to their gradients, count
// their rounds (state kept in checkpoints) and upload the count.
type hooked struct {
	sim.Strategy // FedAvg's
	shift        float64
	sent         []float64 // the server's state: per client, the last count received
}

func (*hooked) Name() sim.Algorithm { return "hooked" }
func (h *hooked) ClientHook(int) sim.ClientHook {
	return &hookClient{shift: h.shift}
}
func (h *hooked) Broadcast(round, client int) []float64 {
	return []float64{float64(round), h.sent[client]}
}
func (h *hooked) Mix(in *sim.RoundInput) sim.Mixing {
	for _, u := range in.Updates {
		h.sent[u.ID] = u.Extra[0]
	}
	return h.Strategy.Mix(in)
}
func (h *hooked) MarshalState() ([]byte, error) { return json.Marshal(h.sent) }
func (h *hooked) UnmarshalState(b []byte) error { return json.Unmarshal(b, &h.sent) }

type hookClient struct {
	shift  float64
	rounds float64
}

func (c *hookClient) Start(msg *sim.Message, shared []*gnn.Param) error {
	if len(msg.Extra) != 2 || msg.Extra[0] != float64(msg.Round) || msg.Extra[1] != c.rounds {
		return fmt.Errorf("round %d: broadcast %v, want [%d %v]", msg.Round, msg.Extra, msg.Round, c.rounds)
	}
	c.rounds++
	return nil
}
func (c *hookClient) Gradient(shared []*gnn.Param) {
	for _, p := range shared {
		for i := range p.Grad {
			p.Grad[i] += c.shift
		}
	}
}
func (c *hookClient) Finish(up *sim.Update, shared []*gnn.Param) error {
	up.Extra = []float64{c.rounds}
	return nil
}
func (c *hookClient) MarshalState() ([]byte, error) { return []byte(fmt.Sprint(c.rounds)), nil }
func (c *hookClient) UnmarshalState(b []byte) error {
	_, err := fmt.Sscan(string(b), &c.rounds)
	return err
}

func registerHooked(t *testing.T) {
	register(t, sim.Method{Name: "hooked", Describe: "a test method with client hooks",
		Settings: []sim.Setting{{Key: "hook_shift", Type: sim.Float, Default: "0", Doc: "hooked: the constant added to the gradients"}},
		New: func(c *sim.Config) (sim.Strategy, error) {
			avg, err := newOf(methods.FedAvg)(c)
			return &hooked{Strategy: avg, shift: c.Options.Float("hook_shift"), sent: make([]float64, 8)}, err
		}})
}

// TestClientHooks runs a method with a ClientHook and a Broadcaster: the
// hook sees the broadcast (Start fails the round otherwise), its gradient
// change changes the run, its upload reaches Mix, and the run does not
// depend on the number of workers.
func TestClientHooks(t *testing.T) {
	registerHooked(t)
	d := sim.SmallData(t, 7)
	run := func(shift string, workers int) []sim.RoundReport {
		c := sim.SmallConfig("hooked")
		c.Workers = workers
		sim.SetOpts(t, &c, "hook_shift", shift)
		return sim.StripTimes(sim.RunEngine(t, c, d).Reports())
	}
	base := run("0", 1)
	c := sim.SmallConfig(methods.FedAvg)
	c.Workers = 1
	if !reflect.DeepEqual(base, sim.StripTimes(sim.RunEngine(t, c, d).Reports())) {
		t.Error("a hook that changes nothing changes the run")
	}
	shifted := run("0.01", 1)
	if reflect.DeepEqual(base, shifted) {
		t.Error("the hook's gradient change changes nothing")
	}
	if !reflect.DeepEqual(shifted, run("0.01", 4)) {
		t.Error("1 and 4 workers differ")
	}
}

// TestClientHookCheckpoint checks that a Stateful ClientHook's state
// survives a checkpoint: a run resumed after round 2 ends as the
// uninterrupted run (the hooks' counts are checked by Start each round).
func TestClientHookCheckpoint(t *testing.T) {
	registerHooked(t)
	d := sim.SmallData(t, 7)
	c := sim.SmallConfig("hooked")
	sim.SetOpts(t, &c, "hook_shift", "0.01")
	want := sim.StripTimes(sim.RunEngine(t, c, d).Reports())
	e, err := sim.New(c, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := e.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "ck")
	if err := e.SaveCheckpoint(path); err != nil {
		t.Fatal(err)
	}
	r, err := sim.ResumeFile(path, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := sim.StripTimes(r.Reports()); !reflect.DeepEqual(got, want) {
		t.Error("the resumed run differs from the uninterrupted one")
	}
}

// TestCheckpointFormat1 decodes a checkpoint as format 1 wrote it, the
// methods' settings as fields of Config: they come back as Options, and
// the fields left zero as format 1 read them.
func TestCheckpointFormat1(t *testing.T) {
	var payload, file bytes.Buffer
	var ck *sim.Checkpoint
	var err error
	type config1b struct {
		Algo            sim.Algorithm
		Rounds          int
		Mu, GCFLEps2    float64
		GenRounds       int
		FedGNNExpansion bool
	}
	if err := gob.NewEncoder(&payload).Encode(struct {
		Format int
		Config config1b
	}{1, config1b{Algo: methods.GCFL, Rounds: 7, Mu: 0.5, GCFLEps2: 0.2, GenRounds: 3, FedGNNExpansion: true}}); err != nil {
		t.Fatal(err)
	}
	file.Reset()
	file.WriteString(sim.CheckpointMagic)
	binary.Write(&file, binary.BigEndian, uint64(payload.Len()))
	sum := sha256.Sum256(payload.Bytes())
	file.Write(payload.Bytes())
	file.Write(sum[:])
	if ck, err = sim.DecodeCheckpoint(file.Bytes()); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, k := range []string{"tau", "eps1", "eps2", "gta_moments", "gta_type", "gta_eps", "gta_accept", "fedgnn_expansion", "gen_rounds", "gen_steps"} {
		got[k], _ = ck.Config.Get(k)
	}
	want := map[string]string{"tau": "0", "eps1": "0", "eps2": "0.2", "gta_moments": "10", "gta_type": "hybrid",
		"gta_eps": "0", "gta_accept": "moments", "fedgnn_expansion": "on", "gen_rounds": "3", "gen_steps": "0"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("format 1 settings\n%v\nwant\n%v", got, want)
	}
	if ck.Format != sim.CheckpointFormat || ck.Config.Rounds != 7 || ck.Config.Algo != methods.GCFL {
		t.Errorf("format %d, config %+v", ck.Format, ck.Config)
	}
}
