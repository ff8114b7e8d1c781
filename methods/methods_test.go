package methods_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// TestGolden checks every built-in method's numbers and result key
// against the digests recorded for it: per method, the SHA-256 of the
// JSON of the reports (wall-clock times zeroed) of a 4-round run on
// smallData(7) with smallConfig and 2 local epochs (so that FedProx's
// proximal term acts) and, for FedSage+, a 2-round generator phase,
// wanting every matrix: every digit of every metric, similarity and
// weight; and the SHA-256 of the Fingerprint of DefaultConfig, on which
// result stores key finished runs. The digests are those sim recorded
// before the methods moved here (its goldenReports and
// goldenFingerprints): the same run, the same hash. A method added later
// must leave the others' numbers alone; a deliberate change of a method's
// numbers updates its line here (and sim.NumericsVersion, or
// sim.NumericsVersion32 for a float32 change). The report
// digests are amd64's (math's assembly Exp and Log elsewhere may round
// differently).
func TestGolden(t *testing.T) {
	reportsWant := map[sim.Algorithm]string{
		methods.FedSagePlus: "ee5feedc603c41405855c168a004b6a06ca8f42ba4eeb87da793c22d09be2bb2",
		methods.FedSageAPV:  "375ff17f5f6978e7c25d462153cdbd9cbbfc2d620d1bee52f87fe709619d0ed4",
		methods.FedGNN:      "c49f98ebf943a217c80993d025484f35ffa7a427a7e8e7d404bb758a2a996987",
		methods.FedGTA:      "3ed35bf2b9ab0f55a3f513517ca4042f179d27ba1714c28fb1c55dba3d8afdf6",
		methods.FedGTAAPV:   "8a56217d8b59b7e735bd8b8ce1aa3c36eaf72c0ef6383369a32a8047882929c2",
		methods.FedPub:      "0b1834d1e058b0629232cab6211808def53b6b8dc09b62f8905b0bdecef60fd0",
		methods.GCFL:        "418f9980af801f8215aaf7bcd45157329bee4f69b37a008ad094d45cb3300d26",
		methods.FedAux:      "2e296a860a45e9722f4525e44db7a1dbc47d5978c878048500123edd56f5d92d",
		methods.FedAvg:      "59df92c84ae96f65aaf96a03c0dec3c6a134a5c03d4b54ce08511facd62fd8db",
		methods.Local:       "4b1f9f5f35ea6b2e7c459cd8ca7560e2ec40609fa5cd1b81ac94fcbff0223bdb",
		methods.FedPer:      "06523702412095a9add8bfdc463afec2d8b9d01fc9095c5f9b3e14e97d275141",
		methods.FedProx:     "3a6dfbec88ad808e64304495c306b0c2fabf5caecf6a10f0151e9d4aeaf82062",
		methods.FedAuxHard:  "c8611f645eaf36044cf6606570c96e7e06bbc636ec2dbbf347c4b350ded551db",
		methods.FedAvgMask:  "0b8d49024757a564ec125a7ccdbf1d97f38b36a12cd95a7a04ad963a0d8ea034",
		methods.FedPubAPV:   "2e296a860a45e9722f4525e44db7a1dbc47d5978c878048500123edd56f5d92d",
	}
	fingerprintWant := map[sim.Algorithm]string{
		methods.FedSagePlus: "74e418e34078907b5cddb55ef34ff40962cbc5af61baac4b6d8dd153bcc8323e",
		methods.FedSageAPV:  "d7c6ae02dc7489b15d6a202a76181d68b1dc9a274aa48240c8ba4db3c91a004e",
		methods.FedGNN:      "dfe3c819eec12cca085410262ed1686090f9c2608179ab3084f4aacb0755f4ce",
		methods.FedGTA:      "18c28114151ba272f7736f00fc852ea61466c36d387005e7584331e78b524f20",
		methods.FedGTAAPV:   "3cf8d8c003928e3e6d2e3a43ea518938383b126ab4444fdb5d83b049af6c9384",
		methods.FedPub:      "a9694af54556beb625044780fd3c88a2637b44385f070423a4891db976f15317",
		methods.GCFL:        "6b84b42b3c6c9b952d4ac85d437c727fcbe6cf020b061f024f5a6541d3ac3ce6",
		methods.FedAux:      "57414a9850d3edb6dce4bed7dd05b3db75eff8ceab17756c43922c9083d93d1d",
		methods.FedAvg:      "677ac7a19885fde1643d066fc02412fd27c8323bf2799219b79a856d2cb03587",
		methods.Local:       "7c3f2eb66db8b54d62d6f410be2df1a5cb2622f1ceb700eccb0665c1c878565b",
		methods.FedPer:      "2159c3087364e8d9b3d72aa53a9effc3d77408d6b9597a3f53256724b2d822b5",
		methods.FedProx:     "f10fc9fb181b259082e2043ac1d76b542c58243f33192865ec8f5e11156874b7",
		methods.FedAuxHard:  "d39ebfcd76aa177dc3c97cda5035dd6348177e4b31fc829b84000316c7d74465",
		methods.FedAvgMask:  "66415205cd13e763b75db3cbc191dec394f502294f1c707921c1adb3db095b7b",
		methods.FedPubAPV:   "78b699492f9af1c73c0908a4cbcae3675ea31a49e5b29b35b627e51763d46bae",
	}
	for _, algo := range sim.Algorithms() {
		if _, ok := reportsWant[algo]; !ok && !strings.HasPrefix(string(algo), "test_") {
			t.Errorf("%s: no golden digest", algo)
		}
	}
	for algo, want := range reportsWant {
		c := methods.SmallConfig(algo)
		c.Workers, c.Epochs = 2, 2
		methods.Set(t, &c, "gen_rounds", "2")
		reps := methods.Reports(methods.Run(t, c, methods.SmallData(t, 7), sim.WantAll))
		for i := range reps { // a count added after the digests, checked by TestFedSagePlusPhases
			reps[i].Clients = slices.Clone(reps[i].Clients)
			for j := range reps[i].Clients {
				reps[i].Clients[j].Generated = 0
			}
		}
		b, err := json.Marshal(reps)
		if err != nil {
			t.Fatal(err)
		}
		if got := digest(b); runtime.GOARCH == "amd64" && got != want {
			t.Errorf("%s: reports digest %s, golden %s", algo, got, want)
		}
		d := sim.DefaultConfig()
		d.Algo = algo
		if got := digest([]byte(d.Fingerprint())); got != fingerprintWant[algo] {
			t.Errorf("%s: fingerprint %s (digest %s, golden %s)", algo, d.Fingerprint(), got, fingerprintWant[algo])
		}
	}
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestRegistered checks the methods' descriptors as the command line
// reads them.
func TestRegistered(t *testing.T) {
	for algo, display := range map[sim.Algorithm]string{methods.FedProx: "FedProx", methods.FedPer: "FedPer",
		methods.FedAvgMask: "FedAvg_mask", methods.FedAuxHard: "FedAux_hard", methods.FedPubAPV: "FED-PUB+APV"} {
		if !slices.Contains(sim.Algorithms(), algo) || algo.Display() != display || algo.Describe() == "" {
			t.Errorf("%s: registered %v, display %q, description %q", algo, slices.Contains(sim.Algorithms(), algo), algo.Display(), algo.Describe())
		}
	}
	if got := sim.AlgorithmSettings(methods.FedProx); !slices.Equal(got, []string{"mu"}) {
		t.Errorf("fedprox reads %v", got)
	}
	c := sim.DefaultConfig()
	if c.Options.Float("mu") != 0.01 {
		t.Errorf("default mu %v", c.Options.Float("mu"))
	}
	if err := c.Set("mu", "-1"); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err == nil || err.Error() != "sim: mu = -1, want a finite value >= 0" {
		t.Errorf("Validate = %v", err)
	}
}

// TestFedPerKeepsHeadLocal runs FedPer for one round: the GCN layers
// travel, the classifier head does not, so the heads differ between
// clients after the round and FedPer differs from FedAvg.
func TestFedPerKeepsHeadLocal(t *testing.T) {
	c := methods.SmallConfig(methods.FedPer)
	c.Rounds = 2
	d := methods.SmallData(t, 3)
	e := methods.Run(t, c, d)
	models, _, err := e.Models()
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(models[0].Param("cls.weight").Value, models[1].Param("cls.weight").Value) {
		t.Error("two clients have the same classifier head")
	}
	c.Algo = methods.FedAvg
	if reflect.DeepEqual(methods.Reports(e), methods.Reports(methods.Run(t, c, d))) {
		t.Error("fedper is fedavg")
	}
	var names []string
	for _, p := range models[0].Params() {
		if e.Strategy().Shares(p) {
			names = append(names, p.Name)
		}
	}
	if got := strings.Join(names, " "); got != "conv1.weight conv1.bias conv2.weight conv2.bias" {
		t.Errorf("fedper shares %q", got)
	}
}

// TestFedProxIsFedAvgAtMuZero compares FedProx with FedAvg. With one
// local step per round the proximal gradient mu (theta - theta_global)
// vanishes (theta is theta_global when the only gradient is taken), so
// FedProx is FedAvg bit for bit at any mu; with two local steps it is
// FedAvg only at mu = 0.
func TestFedProxIsFedAvgAtMuZero(t *testing.T) {
	d := methods.SmallData(t, 3)
	runMu := func(algo sim.Algorithm, mu string, epochs int) []sim.RoundReport {
		c := methods.SmallConfig(algo)
		c.Rounds, c.Epochs = 3, epochs
		if err := c.Set("mu", mu); err != nil {
			t.Fatal(err)
		}
		return methods.Reports(methods.Run(t, c, d))
	}
	if !reflect.DeepEqual(runMu(methods.FedAvg, "0", 1), runMu(methods.FedProx, "1", 1)) {
		t.Error("one local step: fedprox with mu = 1 differs from fedavg")
	}
	avg := runMu(methods.FedAvg, "0", 2)
	if !reflect.DeepEqual(avg, runMu(methods.FedProx, "0", 2)) {
		t.Error("two local steps: fedprox with mu = 0 differs from fedavg")
	}
	if reflect.DeepEqual(avg, runMu(methods.FedProx, "1", 2)) {
		t.Error("two local steps: fedprox with mu = 1 equals fedavg")
	}
}

// TestAblations checks FedAux's ablations: what they share, which knobs
// they read, and that fedavg_mask's weights are uniform beside the APV
// similarity.
func TestAblations(t *testing.T) {
	d := methods.SmallData(t, 3)
	for _, c := range []struct {
		algo                   sim.Algorithm
		shared                 string
		alpha, sigma, partners bool
	}{
		{methods.FedAuxHard, "conv1.weight conv1.bias conv2.weight conv2.bias cls.weight cls.bias apv hard.conv1.weight hard.conv1.bias hard.conv2.weight hard.conv2.bias", true, false, true},
		{methods.FedAvgMask, "conv1.weight conv1.bias conv2.weight conv2.bias cls.weight cls.bias apv", false, true, false},
	} {
		e, err := sim.New(methods.SmallConfig(c.algo), d, nil)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := e.Step(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		models, _, err := e.Models()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range models[0].Params() {
			if e.Strategy().Shares(p) {
				names = append(names, p.Name)
			}
		}
		if got := strings.Join(names, " "); got != c.shared {
			t.Errorf("%s shares %q, want %q", c.algo, got, c.shared)
		}
		if a, s, p := e.ReadsKnob(sim.KnobAlpha), e.ReadsKnob(sim.KnobSigma), e.ReadsKnob(sim.KnobPartners); a != c.alpha || s != c.sigma || p != c.partners {
			t.Errorf("%s reads alpha %v sigma %v partners %v, want %v %v %v", c.algo, a, s, p, c.alpha, c.sigma, c.partners)
		}
		if rep.Similarity == nil || rep.WeightsFrom != sim.SourceAPV {
			t.Errorf("%s: weights from %q, similarity %v", c.algo, rep.WeightsFrom, rep.Similarity != nil)
		}
		if c.algo == methods.FedAvgMask {
			for i, row := range rep.Weights {
				for j, v := range row {
					if v != 1.0/8 {
						t.Fatalf("fedavg_mask: w[%d][%d] = %v, want 1/8", i, j, v)
					}
				}
			}
		}
	}
}

// TestFedPubAPVIsFedAux runs FED-PUB+APV and FedAux (-sim apv, -apv_mix
// on) from one seed: the same client model, the same parameters travel,
// and every report is the same, bit for bit; the weights come from the
// APV, and no functional view (FED-PUB's proxy graph) is computed.
func TestFedPubAPVIsFedAux(t *testing.T) {
	d := methods.SmallData(t, 7)
	pub := methods.Run(t, methods.SmallConfig(methods.FedPubAPV), d)
	aux := methods.Run(t, methods.SmallConfig(methods.FedAux), d)
	if !reflect.DeepEqual(methods.Reports(pub), methods.Reports(aux)) {
		t.Error("fedpub_apv's reports differ from fedaux's")
	}
	models, _, err := pub.Models()
	if err != nil {
		t.Fatal(err)
	}
	if cfg := models[0].Config(); !cfg.Masked || !cfg.Kernel {
		t.Errorf("fedpub_apv's client: masked %v, kernel %v; want FED-PUB's MaskedGCN with the APV head", cfg.Masked, cfg.Kernel)
	}
	if r := pub.Reports()[0]; r.WeightsFrom != sim.SourceAPV || r.Views[sim.SourceFunctional] != nil {
		t.Errorf("weights from %q, functional view %v", r.WeightsFrom, r.Views[sim.SourceFunctional] != nil)
	}
	if got := sim.AlgorithmSettings(methods.FedPubAPV); !slices.Equal(got, []string{"alpha", "partners"}) {
		t.Errorf("fedpub_apv reads %v", got)
	}
}

// TestCanSwitch checks which of this package's methods a run may switch
// to (sim.Engine.CanSwitch: the same client model), and that a FedAux
// run forked as fedavg_mask mixes uniformly.
func TestCanSwitch(t *testing.T) {
	d := methods.SmallData(t, 7)
	for _, c := range []struct {
		from    sim.Algorithm
		ok, not []sim.Algorithm
	}{
		{methods.FedAux, []sim.Algorithm{methods.FedAvgMask, methods.FedPubAPV}, []sim.Algorithm{methods.FedProx, methods.FedPer, methods.FedAuxHard}},
		{methods.FedAvg, []sim.Algorithm{methods.FedProx, methods.FedPer}, []sim.Algorithm{methods.FedAvgMask, methods.FedPubAPV, methods.FedAuxHard}},
	} {
		e, err := sim.New(methods.SmallConfig(c.from), d, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range c.ok {
			if err := e.CanSwitch(a); err != nil {
				t.Errorf("%s to %s: %v", c.from, a, err)
			}
		}
		for _, a := range c.not {
			if err := e.CanSwitch(a); err == nil {
				t.Errorf("%s to %s allowed; their client models differ", c.from, a)
			}
		}
	}
	e := methods.Run(t, methods.SmallConfig(methods.FedAux), d)
	f, err := e.ForkAs(nil, methods.FedAvgMask)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := f.Step(context.Background()) // a round past the run's last: Step runs it

	if err != nil {
		t.Fatal(err)
	}
	if rep.Weights == nil || rep.Weights[0][0] != 1.0/8 || rep.Weights[0][1] != 1.0/8 {
		t.Errorf("fork as fedavg_mask: weights %v, want 1/8", rep.Weights[0])
	}
}

// TestSettingsOrder pins the order of the methods' settings in
// sim.Settings ('fedaux scenario keys', -h): that of their registration
// in methods.go, the order sim listed them in before they moved here.
func TestSettingsOrder(t *testing.T) {
	want := []string{"tau", "eps1", "eps2", "gta_moments", "gta_type", "gta_eps", "gta_accept",
		"fedgnn_expansion", "gen_rounds", "gen_steps", "mu"}
	var got []string
	for _, k := range sim.Settings() {
		if slices.Contains(want, k) {
			got = append(got, k)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("method settings in the order %v, want %v", got, want)
	}
	all := sim.Settings()
	if i := slices.Index(all, "tau"); i < 0 || !slices.Equal(all[i:i+len(want)], want) {
		t.Errorf("the method settings are not listed together after the shared ones: %v", all)
	}
}
