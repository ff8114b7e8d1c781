package similarity

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/sim"
)

// A Variant is one way of running the federation: which signature sets
// FedAux's weights, whether the APV is mixed, and fixed or automatic
// alpha. Unset fields keep the base configuration.
type Variant struct {
	Algo     sim.Algorithm
	Source   sim.Source
	Mix      string // "", "on" or "off"
	Alpha    string // "", a number, or "auto"
	Partners float64
	Score    string // "", "cosine" or "maxnorm" (the APV score, Eq. 2)
}

// Name is the variant's canonical spelling, as ParseVariants reads it.
func (v Variant) Name() string {
	var parts []string
	add := func(k, val string) {
		if val != "" {
			parts = append(parts, k+"="+val)
		}
	}
	add("algo", string(v.Algo))
	add("sim", string(v.Source))
	add("mix", v.Mix)
	add("alpha", v.Alpha)
	if v.Alpha == "auto" && v.Partners > 0 {
		add("partners", strconv.FormatFloat(v.Partners, 'g', -1, 64))
	}
	add("score", v.Score)
	if len(parts) == 0 {
		return "base"
	}
	return strings.Join(parts, ",")
}

// Slug is the variant's name as a directory name.
func (v Variant) Slug() string {
	return strings.NewReplacer("=", "-", ",", "_").Replace(v.Name())
}

// Apply sets the variant's settings in c and validates them.
func (v Variant) Apply(c *sim.Config) error {
	if v.Algo != "" {
		c.Algo = v.Algo
	}
	if v.Source != "" {
		c.Source = v.Source
	}
	switch v.Mix {
	case "on":
		c.APVMix = true
	case "off":
		c.APVMix = false
	}
	if v.Score != "" {
		k, err := gnn.ParseScoreKind(v.Score)
		if err != nil {
			return fmt.Errorf("similarity: variant %s: %w", v.Name(), err)
		}
		c.Score = k
	}
	switch v.Alpha {
	case "":
	case "auto":
		c.Partners = v.Partners
	default:
		a, err := strconv.ParseFloat(v.Alpha, 64)
		if err != nil {
			return fmt.Errorf("similarity: variant %s: alpha %q, want a number or auto", v.Name(), v.Alpha)
		}
		c.Alpha, c.Partners = a, 0
	}
	if err := c.Validate(); err != nil {
		return fmt.Errorf("similarity: variant %s: %w", v.Name(), err)
	}
	return nil
}

// ParseVariants reads a list of variants: "grid" (every source x APV
// mixing on/off x fixed alpha/auto alpha), "base" or "" (the base
// configuration alone), or variants separated by ';', each a
// comma-separated list of key=value with keys algo, sim, mix (on|off),
// alpha (number|auto), partners and score (cosine|maxnorm). alpha and partners are the grid's
// fixed alpha and auto alpha's target.
func ParseVariants(s string, alpha, partners float64) ([]Variant, error) {
	switch strings.TrimSpace(s) {
	case "grid":
		var vs []Variant
		for _, src := range sim.Sources() {
			for _, mix := range []string{"on", "off"} {
				vs = append(vs,
					Variant{Source: src, Mix: mix, Alpha: strconv.FormatFloat(alpha, 'g', -1, 64)},
					Variant{Source: src, Mix: mix, Alpha: "auto", Partners: partners})
			}
		}
		return vs, nil
	case "base", "":
		return []Variant{{}}, nil
	}
	var vs []Variant
	for _, spec := range strings.Split(s, ";") {
		if strings.TrimSpace(spec) == "" {
			continue
		}
		v := Variant{Partners: partners}
		seen := map[string]bool{}
		for _, kv := range strings.Split(spec, ",") {
			kv = strings.TrimSpace(kv)
			if kv == "" {
				continue
			}
			k, val, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, fmt.Errorf("similarity: variant %q: want key=value", kv)
			}
			if k == "apv-mix" {
				k = "mix"
			}
			if seen[k] {
				return nil, fmt.Errorf("similarity: variant %q: %s twice", spec, k)
			}
			seen[k] = true
			switch k {
			case "algo":
				a, err := sim.ParseAlgorithm(val)
				if err != nil {
					return nil, fmt.Errorf("similarity: variant %q: %w", spec, err)
				}
				v.Algo = a
			case "sim":
				s, err := sim.ParseSource(val)
				if err != nil {
					return nil, fmt.Errorf("similarity: variant %q: %w", spec, err)
				}
				v.Source = s
			case "mix":
				v.Mix = val
			case "alpha":
				v.Alpha = val
			case "partners":
				p, err := strconv.ParseFloat(val, 64)
				if err != nil {
					return nil, fmt.Errorf("similarity: variant partners %q: want a number", val)
				}
				v.Partners = p
			case "score":
				if _, err := gnn.ParseScoreKind(val); err != nil {
					return nil, fmt.Errorf("similarity: variant %q: %w", spec, err)
				}
				v.Score = val
			default:
				return nil, fmt.Errorf("similarity: variant key %q unknown (have algo, sim, mix, alpha, partners, score)", k)
			}
		}
		if v.Mix != "" && v.Mix != "on" && v.Mix != "off" {
			return nil, fmt.Errorf("similarity: variant mix %q, want on or off", v.Mix)
		}
		for _, w := range vs {
			if w == v {
				return nil, fmt.Errorf("similarity: variant %q twice", v.Name())
			}
		}
		vs = append(vs, v)
	}
	if len(vs) == 0 {
		return nil, fmt.Errorf("similarity: no variant in %q (want base, grid, or key=value,...;...)", s)
	}
	return vs, nil
}
