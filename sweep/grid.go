package sweep

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fedaux/fedaux/sim"
)

// A Knob is one swept setting and its values, as written ("0.1", "1").
type Knob struct {
	Key    string
	Values []string
}

// ClientDropout is the sweepable name of the probability that a client
// misses a round (the -dropout flag of run); every other knob is a
// setting of sim.NumericSettings.
const ClientDropout = "client_dropout"

// Keys lists what a sweep can vary.
func Keys() []string {
	return append(sim.NumericSettings(), ClientDropout)
}

// ParseKnob reads "key=v1,v2,...": a setting of Keys and its values, in
// the order given, none empty and none repeated: not as written, nor as
// another spelling of one value (0.5 and 0.50, 1e-2 and 0.01).
func ParseKnob(s string) (Knob, error) {
	key, vals, ok := strings.Cut(s, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return Knob{}, fmt.Errorf("sweep: grid %q: want key=v1,v2,... (keys: %s)", s, strings.Join(Keys(), ", "))
	}
	if !slices.Contains(Keys(), key) {
		return Knob{}, fmt.Errorf("sweep: grid %q: %q cannot be swept (keys: %s)", s, key, strings.Join(Keys(), ", "))
	}
	k := Knob{Key: key}
	if strings.Trim(vals, ", \t") == "" {
		return Knob{}, fmt.Errorf("sweep: grid %q: no values", s)
	}
	var seen []string // the values' canonical spellings
	parts := strings.Split(vals, ",")
	for at, v := range parts {
		if v = strings.TrimSpace(v); v == "" {
			// Most likely a value lost in typing (1,,2): refused, not skipped.
			return Knob{}, fmt.Errorf("sweep: grid %q: value %d of %d is empty", s, at+1, len(parts))
		}
		if i := slices.Index(seen, canonical(key, v)); i >= 0 {
			if was := k.Values[i]; was != v {
				return Knob{}, fmt.Errorf("sweep: grid %q: value %s twice (as %s)", s, v, was)
			}
			return Knob{}, fmt.Errorf("sweep: grid %q: value %s twice", s, v)
		}
		k.Values = append(k.Values, v)
		seen = append(seen, canonical(key, v))
	}
	return k, nil
}

// canonical spells v as the setting key holds it, so that two spellings
// of one value are one; a value that does not parse stays as written
// (the setting refuses it when the sweep is planned).
func canonical(key, v string) string {
	if key == ClientDropout {
		f, err := sim.ParseFloat(v)
		if err != nil {
			return v
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	c := sim.DefaultConfig()
	if err := c.Set(key, v); err != nil {
		return v
	}
	s, err := c.Get(key)
	if err != nil {
		return v
	}
	return s
}

// A Combo is one combination of the knobs' values, in knob order.
type Combo []string

// Name spells the combination as "alpha=0.1,hidden=64".
func (c Combo) Name(knobs []Knob) string {
	parts := make([]string, len(knobs))
	for i, k := range knobs {
		parts[i] = k.Key + "=" + c[i]
	}
	return strings.Join(parts, ",")
}

// Combos lists every combination of the knobs' values, the last knob
// varying fastest.
func Combos(knobs []Knob) []Combo {
	out := []Combo{{}}
	for _, k := range knobs {
		var next []Combo
		for _, c := range out {
			for _, v := range k.Values {
				next = append(next, append(slices.Clone(c), v))
			}
		}
		out = next
	}
	return out
}

// apply sets a combination in c (and the client dropout in *dropout)
// and validates the result.
func apply(knobs []Knob, combo Combo, c *sim.Config, dropout *float64) error {
	for i, k := range knobs {
		if k.Key == ClientDropout {
			var d sim.Config
			if err := d.Set("dropout", combo[i]); err != nil {
				return fmt.Errorf("sweep: %s = %s: want a number", k.Key, combo[i])
			}
			if !(d.Dropout >= 0 && d.Dropout < 1) {
				return fmt.Errorf("sweep: %s = %s: want 0 <= p < 1", k.Key, combo[i])
			}
			*dropout = d.Dropout
			continue
		}
		if err := c.Set(k.Key, combo[i]); err != nil {
			return err
		}
	}
	return c.Validate()
}
