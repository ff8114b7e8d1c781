package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"runtime"
	"slices"
	"testing"
)

// goldenReports holds, per algorithm, the SHA-256 of the JSON of the
// reports (wall-clock times zeroed) of a 4-round run on smallData(7)
// with smallConfig and 2 local epochs (so that FedProx's proximal term
// acts) and, for FedSage+, a 2-round generator phase, wanting every
// matrix: every digit of every
// metric, similarity and weight. An algorithm added later must leave the
// others' numbers alone; a deliberate change of an algorithm's numbers
// updates its line here (and sim.NumericsVersion). The methods of
// package methods have theirs in its tests (TestGolden), where the lines
// of the methods that moved there went unchanged.
var goldenReports = map[Algorithm]string{
	"fedsage_plus": "ee5feedc603c41405855c168a004b6a06ca8f42ba4eeb87da793c22d09be2bb2",
	"fedsage_apv":  "375ff17f5f6978e7c25d462153cdbd9cbbfc2d620d1bee52f87fe709619d0ed4",
}

func reportDigest(t *testing.T, algo Algorithm) string {
	t.Helper()
	c := smallConfig(algo)
	c.Workers, c.Epochs = 2, 2
	setOpts(t, &c, "gen_rounds", "2")
	e := runEngine(t, c, smallData(t, 7), WantAll)
	reps := stripTimes(e.Reports())
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
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestGoldenReports checks that every algorithm's numbers are those
// recorded in goldenReports.
// The digests are amd64's (math's assembly Exp and Log elsewhere may
// round differently).
func TestGoldenReports(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("golden digests are recorded on amd64")
	}
	for _, algo := range slices.Sorted(maps.Keys(goldenReports)) {
		t.Run(string(algo), func(t *testing.T) {
			got := reportDigest(t, algo)
			if want := goldenReports[algo]; got != want {
				t.Errorf("%s: reports digest %s, golden %s", algo, got, want)
			}
		})
	}
}

// goldenFingerprints holds, per algorithm, the SHA-256 of the
// Fingerprint of DefaultConfig: result stores key finished runs on it,
// so a new setting must leave the algorithms that do not read it alone.
var goldenFingerprints = map[Algorithm]string{
	"fedsage_plus": "74e418e34078907b5cddb55ef34ff40962cbc5af61baac4b6d8dd153bcc8323e",
	"fedsage_apv":  "d7c6ae02dc7489b15d6a202a76181d68b1dc9a274aa48240c8ba4db3c91a004e",
}

// TestGoldenFingerprints checks every algorithm's default fingerprint
// against goldenFingerprints.
func TestGoldenFingerprints(t *testing.T) {
	for _, algo := range slices.Sorted(maps.Keys(goldenFingerprints)) {
		c := DefaultConfig()
		c.Algo = algo
		sum := sha256.Sum256([]byte(c.Fingerprint()))
		got := hex.EncodeToString(sum[:])
		if want := goldenFingerprints[algo]; got != want {
			t.Errorf("%s: fingerprint %s (digest %s, golden %s)", algo, c.Fingerprint(), got, want)
		}
	}
}
