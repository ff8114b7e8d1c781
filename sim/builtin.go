package sim

import "strconv"

// The built-in methods that live in sim register through Register, as
// any other method does (FedAux, FedAvg, Local, FED-PUB, GCFL, FedAvg_mask, FedAux_hard,
// FED-PUB+APV, FedProx and FedPer are in package methods). The order fixes the order of their settings
// in Settings (gta_*, fedgnn_expansion, gen_*).
func init() {
	apvKnobs := []string{"alpha", "partners"}
	for _, m := range []Method{
		{Name: FedGTA, Display: "FedGTA", Settings: gtaSettings,
			Describe: "FedGTA: plain GCN; label-propagation moments and smoothing confidence; each client mixes the clients whose moment cosine > -gta_eps, weighted by confidence",
			New:      func(c *Config) (Strategy, error) { return newFedGTA(c), nil }},
		{Name: FedGTAAPV, Display: "FedGTA+APV", Uses: []string{"alpha"},
			Settings: append(gtaSettings[:len(gtaSettings):len(gtaSettings)], Setting{
				Key: "gta_accept", Type: Choice, Default: string(AcceptMoments), Choices: []string{string(AcceptMoments), string(AcceptAPV)},
				Doc: "fedgta_apv: the accept set S_k: moments (FedGTA's: moment cosine > gta_eps) or apv (ablation: APV cosine > gta_eps)"}),
			Describe: "FedGTA+APV: GCN + APV head; client k mixes its accept set (-gta_accept) weighted by confidence * exp(alpha * APV cosine)",
			New:      func(c *Config) (Strategy, error) { return newFedGTAAPV(c), nil }},
		{Name: FedGNN, Display: "FedGNN",
			Describe: "FedGNN-NC: plain GCN on the graph expanded with cut-edge neighbours' embeddings relayed by the server; LDP; FedAvg by training-set size",
			Settings: []Setting{{Key: "fedgnn_expansion", Type: OnOff, Default: "on",
				Doc: "fedgnn: on: graph expansion of layer 2 with cut-edge neighbours' embeddings through the server (none with one layer); off: FedAvg with LDP only"}},
			New: func(c *Config) (Strategy, error) { return newFedGNN(c), nil }},
		{Name: FedSagePlus, Display: "FedSage+", Settings: sageSettings, Check: checkSage,
			Describe: "FedSage+: NeighGen rounds (-gen_rounds) train missing-neighbour generators across clients, then FedAvg of GraphSAGE on the mended graphs",
			New:      func(c *Config) (Strategy, error) { return newFedSagePlus(c), nil }},
		{Name: FedSageAPV, Display: "FedSage+APV", Uses: apvKnobs, Settings: sageSettings, Check: checkSage,
			Describe: "FedSage+APV: FedSage+'s NeighGen rounds, then GraphSAGE + APV head mixed by softmax(alpha * APV cosine) instead of FedAvg",
			New:      func(c *Config) (Strategy, error) { return newFedSageAPV(c), nil }},
	} {
		Register(m)
	}
}

// gtaSettings are FedGTA's and FedGTA+APV's settings.
var gtaSettings = []Setting{
	{Key: "gta_moments", Type: Int, Default: strconv.Itoa(defaultGTAMoments),
		Check: func(v string) string {
			if n, _ := strconv.Atoi(v); n < 0 {
				return ">= 1 (or 0 for the default)"
			}
			return ""
		},
		Normalize: func(v string) string {
			if v == "0" { // a configuration from before FedGTA, such as an older checkpoint's
				return strconv.Itoa(defaultGTAMoments)
			}
			return v
		},
		Doc: "fedgta, fedgta_apv: number of moments q of the label-propagated predictions (authors: Cora 6, CiteSeer 20, PubMed 13; OpenFGL 10)"},
	{Key: "gta_type", Type: Choice, Default: string(defaultGTAType), Choices: []string{string(MomentsHybrid), string(MomentsOrigin)},
		Doc: "fedgta, fedgta_apv: moments hybrid (raw and central) or origin (raw only)"},
	{Key: "gta_eps", Type: Float, Default: fmtFloat(defaultGTAEps), Check: Finite,
		Doc: "fedgta, fedgta_apv: accept threshold: client k mixes the clients whose moment cosine exceeds it (authors: Cora 0.5, CiteSeer 0.6, PubMed 0.65)"},
}

// sageSettings are FedSage+'s and FedSage+APV's settings.
var sageSettings = []Setting{
	{Key: "gen_rounds", Type: Int, Default: strconv.Itoa(defaultGenRounds), Check: AtLeast(0),
		Doc: "fedsage_plus, fedsage_apv: rounds of the generator phase (NeighGen and the local classifier), then FedAvg (fedsage_apv: APV mixing) on the mended graphs"},
	{Key: "gen_steps", Type: Int, Default: "1",
		Doc: "fedsage_plus, fedsage_apv: Adam steps per generator round"},
}

// checkSage checks FedSage+'s and FedSage+APV's settings together.
func checkSage(c *Config) error {
	if c.layers() != 2 {
		return &SettingError{"layers", strconv.Itoa(c.Layers), "2 (" + string(c.Algo) + "'s GraphSAGE networks have two layers)"}
	}
	if n := c.Options.Int("gen_steps"); n < 1 {
		return &SettingError{"gen_steps", strconv.Itoa(n), ">= 1"}
	}
	return nil
}
