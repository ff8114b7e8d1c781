package sim

import (
	"bytes"
	"encoding/gob"
	"strconv"
)

// format1Config holds the methods' settings as checkpoint format 1 stored
// them, as fields of Config; gob matches the fields by name.
type format1Config struct {
	Mu, Tau, GCFLEps1, GCFLEps2 float64
	GTAMoments                  int
	GTAType                     string
	GTAEps                      float64
	GTAAccept                   string
	FedGNNExpansion             bool
	GenRounds, GenSteps         int
}

// readFormat1 sets the method settings of c from a format 1 checkpoint's
// payload. A field that gob left out was zero when written (gob omits
// zero values), and zero is what format 1 meant by it: 0 for mu, tau,
// eps1, eps2, gta_eps, gen_rounds and gen_steps, off for
// fedgnn_expansion, and the default for gta_moments, gta_type and
// gta_accept (checkpoints from before FedGTA). The fields are
// set whatever the algorithm, as format 1 held them all.
func readFormat1(payload []byte, c *Config) error {
	var old struct{ Config format1Config }
	if err := gob.NewDecoder(bytes.NewReader(payload)).Decode(&old); err != nil {
		return err
	}
	o := old.Config
	kv := []string{
		"mu", fmtFloat(o.Mu), "tau", fmtFloat(o.Tau), "eps1", fmtFloat(o.GCFLEps1), "eps2", fmtFloat(o.GCFLEps2),
		"gta_moments", strconv.Itoa(o.GTAMoments), "gta_eps", fmtFloat(o.GTAEps),
		"fedgnn_expansion", onOff(o.FedGNNExpansion), "gen_rounds", strconv.Itoa(o.GenRounds), "gen_steps", strconv.Itoa(o.GenSteps),
	}
	if o.GTAType != "" {
		kv = append(kv, "gta_type", o.GTAType)
	}
	if o.GTAAccept != "" {
		kv = append(kv, "gta_accept", o.GTAAccept)
	}
	for i := 0; i < len(kv); i += 2 {
		if lookup(kv[i]) == nil {
			continue // a built-in no longer registered (a program without it)
		}
		if err := c.Set(kv[i], kv[i+1]); err != nil {
			return err
		}
	}
	return nil
}
