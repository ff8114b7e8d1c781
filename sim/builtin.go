package sim

import "strconv"

// The built-in methods that live in sim register through Register, as
// any other method does (FedAux, FedAvg, Local, FED-PUB, GCFL, FedGTA, FedGTA+APV, FedGNN, FedAvg_mask, FedAux_hard,
// FED-PUB+APV, FedProx and FedPer are in package methods). The order fixes the order of their settings
// in Settings (gen_*).
func init() {
	apvKnobs := []string{"alpha", "partners"}
	for _, m := range []Method{
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
