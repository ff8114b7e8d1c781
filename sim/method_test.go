package sim

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
)

// unregister removes a method registered by a test, so that the tests
// that go through every algorithm (the golden digests) see the built-ins
// only.
func unregister(name Algorithm) {
	registry.Lock()
	defer registry.Unlock()
	m := registry.methods[name]
	if m == nil {
		return
	}
	delete(registry.methods, name)
	registry.order = slices.DeleteFunc(registry.order, func(a Algorithm) bool { return a == name })
	for _, s := range m.Settings {
		registry.owners[s.Key] = slices.DeleteFunc(registry.owners[s.Key], func(a Algorithm) bool { return a == name })
		if len(registry.owners[s.Key]) == 0 {
			delete(registry.owners, s.Key)
			registry.settings = slices.DeleteFunc(registry.settings, func(t Setting) bool { return t.Key == s.Key })
		}
	}
	for _, u := range m.Uses {
		registry.users[u] = slices.DeleteFunc(registry.users[u], func(a Algorithm) bool { return a == name })
	}
}

// register registers m for the rest of the test.
func register(t *testing.T, m Method) {
	t.Helper()
	Register(m)
	t.Cleanup(func() { unregister(m.Name) })
}

func registerPanic(m Method) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r) // nothing was registered
		}
	}()
	Register(m)
	unregister(m.Name)
	return ""
}

func TestRegisterRefusesBadDescriptors(t *testing.T) {
	ok := func(*Config) (Strategy, error) { return fedAvg{}, nil }
	for _, c := range []struct {
		m    Method
		want string
	}{
		{Method{Name: "Bad-Name", Describe: "x", New: ok}, "lower-case"},
		{Method{Name: "nodesc", New: ok}, "no Describe"},
		{Method{Name: "nonew", Describe: "x"}, "no New"},
		{Method{Name: FedAvg, Describe: "x", New: ok}, "registered twice"},
		{Method{Name: "usesbad", Describe: "x", New: ok, Uses: []string{"sigma"}}, `Uses "sigma"`},
		{Method{Name: "shared", Describe: "x", New: ok, Settings: []Setting{{Key: "lr", Type: Float, Default: "0.1"}}}, "is a shared setting"},
		{Method{Name: "notype", Describe: "x", New: ok, Settings: []Setting{{Key: "k", Default: "1"}}}, "no Type"},
		{Method{Name: "noncanon", Describe: "x", New: ok, Settings: []Setting{{Key: "k", Type: Float, Default: "0.50"}}}, "not canonical"},
		{Method{Name: "badchoice", Describe: "x", New: ok, Settings: []Setting{{Key: "k", Type: Choice, Default: "a"}}}, "without Choices"},
		{Method{Name: "badcheck", Describe: "x", New: ok, Settings: []Setting{{Key: "k", Type: Float, Default: "-1", Check: NonNegative}}}, "Default -1, want"},
		{Method{Name: "othermu", Describe: "x", New: ok, Settings: []Setting{{Key: "eps1", Type: Float, Default: "0.5"}}}, "declared differently by [gcfl]"},
	} {
		if got := registerPanic(c.m); !strings.Contains(got, c.want) {
			t.Errorf("%s: panic %q, want it to say %q", c.m.Name, got, c.want)
		}
	}
	if _, ok := LookupMethod("nodesc"); ok {
		t.Error("a refused method is registered")
	}
}

// TestMethodSettingsEverywhere registers a method with a setting of its
// own and checks that the setting is one like the built-ins': listed,
// typed, canonical, validated, described, and in the fingerprint of its
// method only.
func TestMethodSettingsEverywhere(t *testing.T) {
	before := DefaultConfig()
	fps := map[Algorithm]string{}
	for _, a := range Algorithms() {
		c := before
		c.Algo = a
		fps[a] = c.Fingerprint()
	}
	register(t, Method{Name: "probe_method", Describe: "a test method", Display: "Probe", Uses: []string{"alpha"},
		Settings: []Setting{{Key: "probe_k", Type: Float, Default: "0.25", Check: NonNegative, Doc: "probe_method: a coefficient"}},
		New:      func(*Config) (Strategy, error) { return fedAvg{}, nil }})
	if !slices.Contains(Algorithms(), "probe_method") || Algorithm("probe_method").Display() != "Probe" {
		t.Fatalf("algorithms %v", Algorithms())
	}
	if _, err := ParseAlgorithm("probe_method"); err != nil {
		t.Error(err)
	}
	if s := Settings(); s[len(s)-1] != "probe_k" {
		t.Errorf("settings %v: want probe_k last", s)
	}
	if !slices.Contains(NumericSettings(), "probe_k") {
		t.Error("probe_k is not numeric")
	}
	if got := AlgorithmSettings("probe_method"); !slices.Equal(got, []string{"alpha", "probe_k"}) {
		t.Errorf("AlgorithmSettings = %v", got)
	}
	if Describe("probe_k") != "probe_method: a coefficient" {
		t.Errorf("Describe = %q", Describe("probe_k"))
	}
	c := DefaultConfig()
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
	for _, a := range Algorithms() {
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
	var se *SettingError
	if err := d.Set("probe_k", "-2"); err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(); !errors.As(err, &se) || se.Key != "probe_k" || se.Want != "a finite value >= 0" {
		t.Errorf("Validate = %v", err)
	}
	if d := DiffConfig(c, d); !slices.Equal(d, []string{"probe_k: 0.25, not -2"}) {
		t.Errorf("DiffConfig = %v", d)
	}
}

// hooked is a test method: FedAvg whose server broadcasts a vector of its
// state, and whose clients add a constant to their gradients, count
// their rounds (state kept in checkpoints) and upload the count.
type hooked struct {
	fedAvg
	shift float64
	sent  []float64 // the server's state: per client, the last count received
}

func (*hooked) Name() Algorithm { return "hooked" }
func (h *hooked) ClientHook(int) ClientHook {
	return &hookClient{shift: h.shift}
}
func (h *hooked) Broadcast(round, client int) []float64 {
	return []float64{float64(round), h.sent[client]}
}
func (h *hooked) Mix(in *RoundInput) Mixing {
	for _, u := range in.Updates {
		h.sent[u.ID] = u.Extra[0]
	}
	return h.fedAvg.Mix(in)
}
func (h *hooked) MarshalState() ([]byte, error) { return json.Marshal(h.sent) }
func (h *hooked) UnmarshalState(b []byte) error { return json.Unmarshal(b, &h.sent) }

type hookClient struct {
	shift  float64
	rounds float64
}

func (c *hookClient) Start(msg *Message, shared []*gnn.Param) error {
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
func (c *hookClient) Finish(up *Update, shared []*gnn.Param) error {
	up.Extra = []float64{c.rounds}
	return nil
}
func (c *hookClient) MarshalState() ([]byte, error) { return []byte(fmt.Sprint(c.rounds)), nil }
func (c *hookClient) UnmarshalState(b []byte) error {
	_, err := fmt.Sscan(string(b), &c.rounds)
	return err
}

func registerHooked(t *testing.T) {
	register(t, Method{Name: "hooked", Describe: "a test method with client hooks",
		Settings: []Setting{{Key: "hook_shift", Type: Float, Default: "0"}},
		New: func(c *Config) (Strategy, error) {
			return &hooked{shift: c.Options.Float("hook_shift"), sent: make([]float64, 8)}, nil
		}})
}

// TestClientHooks runs a method with a ClientHook and a Broadcaster: the
// hook sees the broadcast (Start fails the round otherwise), its gradient
// change changes the run, its upload reaches Mix, and the run does not
// depend on the number of workers.
func TestClientHooks(t *testing.T) {
	registerHooked(t)
	d := smallData(t, 7)
	run := func(shift string, workers int) []RoundReport {
		c := smallConfig("hooked")
		c.Workers = workers
		setOpts(t, &c, "hook_shift", shift)
		return stripTimes(runEngine(t, c, d).Reports())
	}
	base := run("0", 1)
	c := smallConfig(FedAvg)
	c.Workers = 1
	if !reflect.DeepEqual(base, stripTimes(runEngine(t, c, d).Reports())) {
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
	d := smallData(t, 7)
	c := smallConfig("hooked")
	setOpts(t, &c, "hook_shift", "0.01")
	want := stripTimes(runEngine(t, c, d).Reports())
	e, err := New(c, d, nil)
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
	r, err := resumeFile(path, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := stripTimes(r.Reports()); !reflect.DeepEqual(got, want) {
		t.Error("the resumed run differs from the uninterrupted one")
	}
}

// TestCheckpointFormat1 decodes a checkpoint as format 1 wrote it, the
// methods' settings as fields of Config: they come back as Options, and
// the fields left zero as format 1 read them.
func TestCheckpointFormat1(t *testing.T) {
	var payload, file bytes.Buffer
	var ck *Checkpoint
	var err error
	type config1b struct {
		Algo            Algorithm
		Rounds          int
		Mu, GCFLEps2    float64
		GenRounds       int
		FedGNNExpansion bool
	}
	if err := gob.NewEncoder(&payload).Encode(struct {
		Format int
		Config config1b
	}{1, config1b{Algo: GCFL, Rounds: 7, Mu: 0.5, GCFLEps2: 0.2, GenRounds: 3, FedGNNExpansion: true}}); err != nil {
		t.Fatal(err)
	}
	file.Reset()
	file.WriteString(checkpointMagic)
	binary.Write(&file, binary.BigEndian, uint64(payload.Len()))
	sum := sha256.Sum256(payload.Bytes())
	file.Write(payload.Bytes())
	file.Write(sum[:])
	if ck, err = decodeCheckpoint(file.Bytes()); err != nil {
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
	if ck.Format != checkpointFormat || ck.Config.Rounds != 7 || ck.Config.Algo != GCFL {
		t.Errorf("format %d, config %+v", ck.Format, ck.Config)
	}
}
