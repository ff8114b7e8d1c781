package privacy

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/internal/tiny"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
)

func TestCheckpointRounds(t *testing.T) {
	if got, want := CheckpointRounds(100), []int{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}; !slices.Equal(got, want) {
		t.Errorf("CheckpointRounds(100) = %v, want %v", got, want)
	}
	if got, want := CheckpointRounds(3), []int{1, 1, 1, 2, 2, 2, 3, 3, 3, 3}; !slices.Equal(got, want) {
		t.Errorf("CheckpointRounds(3) = %v, want %v", got, want)
	}
	if got := CheckpointRounds(25); got[0] != 3 || got[9] != 25 {
		t.Errorf("CheckpointRounds(25) = %v, want 3 .. 25", got)
	}
}

func TestNonMembersNames(t *testing.T) {
	for _, n := range NonMemberKinds() {
		b, err := n.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back NonMembers
		if err := back.UnmarshalText(b); err != nil || back != n {
			t.Errorf("%v: round trip gives %v, %v", n, back, err)
		}
	}
	if _, err := ParseNonMembers("train"); err == nil || !strings.HasPrefix(err.Error(), "privacy: ") {
		t.Errorf("ParseNonMembers(train): %v, want a privacy error", err)
	}
	if _, err := NonMembers(7).MarshalText(); err == nil {
		t.Error("an invalid kind marshals")
	}
}

func TestPaperAUC(t *testing.T) {
	if v, ok := PaperAUC("cora-10", methods.FedAux); !ok || v != 0.51 {
		t.Errorf("cora-10 fedaux: %v %v, want 0.51", v, ok)
	}
	if v, ok := PaperAUC("pubmed-10-ref", methods.FedGNN); !ok || v != 0.58 {
		t.Errorf("pubmed-10-ref fedgnn: %v %v, want 0.58", v, ok)
	}
	for _, c := range []struct {
		preset string
		algo   sim.Algorithm
	}{{"cora-20", methods.FedAux}, {"cora-10", methods.FedAvg}, {"sbm", methods.FedAux}, {"citeseer-10", methods.FedAux}} {
		if _, ok := PaperAUC(c.preset, c.algo); ok {
			t.Errorf("%s %s: a paper value where the paper has none", c.preset, c.algo)
		}
	}
}

// TestCandidates checks the candidates of a run: members are the
// client's training nodes, test non-members its test nodes, the other
// non-members other clients' nodes, as many of each, none twice; the
// same for a seed, different for another.
func TestCandidates(t *testing.T) {
	sc, err := tiny.Preset("tiny-4", 4).Build(presets.Env{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	d := sc.Data
	cands, err := drawCandidates(d, 3)
	if err != nil {
		t.Fatal(err)
	}
	for k, c := range cands {
		n := len(c.members)
		if n < 2 || len(c.test) != n || len(c.other) != n {
			t.Fatalf("client %d: %d members, %d test, %d other", k, n, len(c.test), len(c.other))
		}
		seen := map[sim.NodeRef]bool{}
		for _, r := range c.targets(k) {
			if seen[r] {
				t.Errorf("client %d: %v drawn twice", k, r)
			}
			seen[r] = true
		}
		roles := d.Clients[k].Roles
		for _, v := range c.members {
			if roles[v] != 0 {
				t.Errorf("client %d: member %d has role %v", k, v, roles[v])
			}
		}
		for _, v := range c.test {
			if roles[v] != 2 {
				t.Errorf("client %d: test non-member %d has role %v", k, v, roles[v])
			}
		}
		for _, r := range c.other {
			if r.Client == k {
				t.Errorf("client %d: other-client non-member %v is its own", k, r)
			}
		}
		m, non := c.rows(FromOthers)
		if m[0] != 0 || non[0] != 2*n {
			t.Errorf("rows(other) = %v, %v", m, non)
		}
	}
	again, _ := drawCandidates(d, 3)
	if !reflect.DeepEqual(again, cands) {
		t.Error("candidates differ for one seed")
	}
	if other, _ := drawCandidates(d, 4); reflect.DeepEqual(other, cands) {
		t.Error("candidates equal for two seeds")
	}
}

func TestStandardize(t *testing.T) {
	train := [][]float64{{1, 5, 2}, {3, 5, 2}}
	test := [][]float64{{5, 7, 2}}
	standardize(train, test)
	want := [][]float64{{-1, 0, 0}, {1, 0, 0}}
	if !reflect.DeepEqual(train, want) || !reflect.DeepEqual(test, [][]float64{{3, 0, 0}}) {
		t.Errorf("standardized train %v test %v; want %v and [[3 0 0]]", train, test, want)
	}
}

// TestFeatures checks the feature layout on probes made by hand.
func TestFeatures(t *testing.T) {
	probes := make([]*sim.Probe, Checkpoints)
	for r := range probes {
		probes[r] = &sim.Probe{Rows: []sim.ProbeRow{{Projection: float64(r), Loss: float64(10 + r),
			Top: [3]float64{0.5 + float64(r), 0.3, 0.2}, Entropy: 1.1, Norm: 4, APVCos: -0.25}}}
	}
	x, err := features(probes)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 9.5, 0.3, 0.2, 1.1, 4, -0.25}
	if !slices.Equal(x[0], want) {
		t.Errorf("features %v, want %v", x[0], want)
	}
	probes[3].Rows[0].Loss = math.Inf(1)
	if _, err := features(probes); err == nil {
		t.Error("an infinite loss accepted")
	}
	if _, err := features(probes[:9]); err == nil {
		t.Error("9 probes accepted")
	}
}

// stopper interrupts the study after a round of its first cell.
type stopper struct {
	study.Nop
	it    *study.Interrupts
	round int
	done  bool
}

func (s *stopper) Round(_ *study.Cell, r *sim.RoundReport, _ sim.Summary) {
	if !s.done && r.Round == s.round {
		s.done = true
		s.it.Stop()
	}
}

// TestRun runs a tiny study of every descriptor kind and checks the
// results (an attack of each kind per run, AUCs in [0, 1] per client,
// the strategy's descriptor, the attack without descriptor features the
// same as the attack for FedAvg, which has none, and only there), the report, that a rerun computes nothing,
// that another worker count and an interruption resumed from its
// checkpoint give the same attacks, and that a directory holding
// another study's result of a cell is refused.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	p := tiny.Preset("tiny-4", 4)
	algos := []sim.Algorithm{methods.FedAux, methods.FedAvg, methods.FedPub, methods.FedGTA, methods.FedGNN}
	opts := Options{Grid: study.Grid{Presets: []*presets.Preset{p}, Algos: algos, Seeds: 1, Seed: 1, Workers: 1}, Out: dir}
	st, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if st.Ran != len(algos) {
		t.Errorf("ran %d cells, want %d", st.Ran, len(algos))
	}
	results := func(dir string) map[string]RunResult {
		t.Helper()
		store, err := study.OpenStore(dir, study.ResultsFile)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]RunResult{}
		for _, rec := range store.Records() {
			var res RunResult
			if err := study.Extra(rec, &res); err != nil {
				t.Fatal(err)
			}
			out[string(rec.Algo)] = res
		}
		return out
	}
	got := results(dir)
	want := map[sim.Algorithm]sim.Descriptor{methods.FedAux: sim.DescriptorAPV, methods.FedAvg: sim.DescriptorNone,
		methods.FedPub: sim.DescriptorFunctional, methods.FedGTA: sim.DescriptorMoments, methods.FedGNN: sim.DescriptorBoundary}
	for _, a := range algos {
		res := got[string(a)]
		if res.Descriptor != want[a] || !slices.Equal(res.Checkpoints, CheckpointRounds(3)) || len(res.Attacks) != 2 {
			t.Fatalf("%s: descriptor %s, checkpoints %v, %d attacks", a, res.Descriptor, res.Checkpoints, len(res.Attacks))
		}
		differ := 0 // clients whose attack without descriptor differs
		for i, at := range res.Attacks {
			if at.NonMembers != NonMemberKinds()[i] || len(at.Clients) != 4 {
				t.Fatalf("%s: attack %d is %v with %d clients", a, i, at.NonMembers, len(at.Clients))
			}
			var mean float64
			for _, c := range at.Clients {
				inUnit := func(x float64) bool { return x >= 0 && x <= 1 }
				if !inUnit(c.AUC) || !inUnit(c.TrainAUC) || !inUnit(c.NoDescriptorAUC) || !inUnit(c.LossAUC) || c.Members != c.NonMembers || c.Train+c.Test != 2*c.Members {
					t.Errorf("%s %v client %d: %+v", a, at.NonMembers, c.ID, c)
				}
				mean += c.AUC / 4
			}
			if a == methods.FedAvg && at.NoDescriptorAUC != at.AUC {
				t.Errorf("fedavg %v: AUC %v, without descriptor %v: want equal (no descriptor)", at.NonMembers, at.AUC, at.NoDescriptorAUC)
			}
			if math.Abs(mean-at.AUC) > 1e-12 {
				t.Errorf("%s %v: mean AUC %v, clients average %v", a, at.NonMembers, at.AUC, mean)
			}
			for _, c := range at.Clients {
				if c.NoDescriptorAUC != c.AUC {
					differ++
				}
			}
		}
		if a != methods.FedAvg && differ == 0 {
			t.Errorf("%s: the attack without its descriptor is the attack on every client", a)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"## tiny-4", "| fedaux | apv | 1 of 1 |", "| fedgnn | boundary | 1 of 1 |", "AUC, non-members: other", "| algorithm | client 0 |"} {
		if !bytes.Contains(md, []byte(s)) {
			t.Errorf("report lacks %q:\n%s", s, md)
		}
	}
	if st, err := Run(context.Background(), opts); err != nil || st.Ran != 0 {
		t.Errorf("rerun: %+v, %v; want 0 run", st, err)
	}
	res, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	var rendered bytes.Buffer
	if err := Render(&rendered, res); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rendered.Bytes(), md) {
		t.Errorf("Load and Render give\n%s\nwant %s as Run wrote it:\n%s", rendered.String(), MarkdownFile, md)
	}

	// Two workers, and the first cell interrupted after round 2 and resumed.
	two := opts
	two.Out, two.Workers = t.TempDir(), 2
	two.Algos = []sim.Algorithm{methods.FedAux, methods.FedGNN}
	it := study.NewInterrupts()
	two.Interrupts, two.Recorder = it, &stopper{it: it, round: 2}
	var ie *study.InterruptedError
	if _, err := Run(context.Background(), two); !errors.As(err, &ie) || ie.Checkpoint == "" {
		t.Fatalf("interrupted run: %v, want an interruption with a checkpoint", err)
	}
	two.Interrupts, two.Recorder = nil, nil
	if st, err := Run(context.Background(), two); err != nil || st.Ran != 2 {
		t.Fatalf("resumed: ran %d, %v", st.Ran, err)
	}
	again := results(two.Out)
	for _, a := range two.Algos {
		if !reflect.DeepEqual(again[string(a)], got[string(a)]) {
			t.Errorf("%s: the attack differs with 2 workers and a resumed run", a)
		}
	}

	// Another study's result of a cell.
	other := t.TempDir()
	store, err := study.OpenStore(other, study.ResultsFile)
	if err != nil {
		t.Fatal(err)
	}
	cells, _ := opts.cells()
	n := cells[0].Config.Rounds
	if err := store.Append(&study.Record{Key: cells[0].Key(), Scenario: "tiny-4", Algo: methods.FedAux,
		Settings: map[string]string{"rounds": strconv.Itoa(n)}, Val: make([]float64, n), Test: make([]float64, n), BestRound: 1}); err != nil {
		t.Fatal(err)
	}
	opts.Out = other
	if _, err := Run(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "without an attack") {
		t.Errorf("a directory with another study's result: %v", err)
	}
	opts.Algos = []sim.Algorithm{methods.FedSagePlus}
	if _, err := Run(context.Background(), opts); err == nil || !strings.HasPrefix(err.Error(), "privacy: ") {
		t.Errorf("fedsage_plus: %v, want a privacy error", err)
	}
}

// TestAttackClient checks one client's attack on features where the
// loss at T tells members (low loss) from non-members (row 120 is not a
// candidate): the split sizes, a perfect loss threshold, an attack that
// learns it, and the attack without the descriptor features (pure noise
// here) at least as good.
func TestAttackClient(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	x, _ := randomSet(rng, 121, NumFeatures)
	var members, non []int
	for i := range 60 {
		members, non = append(members, i), append(non, 60+i)
		x[i][2*Checkpoints-1] -= 10
	}
	c := attackClient(x, members, non, 1, 0, FromTest)
	if c.Members != 60 || c.NonMembers != 60 || c.Train != 60 || c.Test != 60 {
		t.Errorf("sizes %+v, want 60 and 60 candidates, 60 to train, 60 to test", c)
	}
	if c.LossAUC != 1 || c.AUC < 0.8 || c.NoDescriptorAUC < 0.9 {
		t.Errorf("loss threshold %v, attack %v, without descriptor %v: want 1, > 0.8, > 0.9 (ten noise columns fewer)", c.LossAUC, c.AUC, c.NoDescriptorAUC)
	}
	if x[0][0] == 0 || x[0][2*Checkpoints-1] > -5 {
		t.Error("attackClient changed its input")
	}
}
