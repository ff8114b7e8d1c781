package presets

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/fedaux/fedaux/graphio"
)

// NewSpec returns the scenario every file starts from: the paper's SBM
// (docs/method.md#the-synthetic-sbm) with its split, label skew's beta 0.5, the data seed
// 1234, and Gaussian-feature numbers (32 dimensions, noise 0.3, unit
// class-mean scale) for when features are switched to gaussian.
func NewSpec() *Spec {
	d := graphio.DefaultSBM()
	return &Spec{
		Graph: "sbm", Clients: d.Clients, Normalize: true,
		Partition: PartitionSpec{Beta: 0.5, Seed: dataSeed},
		SBM: SBMSpec{
			Nodes: d.Nodes, Groups: d.Groups, Intra: slices.Clone(d.IntraProb), Inter: d.InterProb,
			Classes: d.Classes, Purity: d.Purity, Features: "onehot",
			FeatureDim: 32, Noise: 0.3, MeanScale: 1,
		},
		Train: graphio.DefaultTrainFrac, Test: graphio.DefaultTestFrac,
		lines: map[string]int{}, explicit: map[string]bool{},
	}
}

// sections are the tables a scenario file may have.
var sections = []string{"partition", "sbm", "split", "run"}

// ParseSpec reads a scenario file: TOML whose keys are those of Fields,
// the top-level ones first, then the tables [partition], [sbm], [split]
// and [run]; keys left out keep NewSpec's values. file names it in
// errors (and relative graph paths are looked up beside it first);
// name is the scenario's name. The result is validated: every error is a
// *SpecError with the file, the line and the key.
func ParseSpec(name, file string, data []byte) (*Spec, error) {
	s := NewSpec()
	s.Name, s.file = name, file
	if file != "" {
		if abs, err := filepath.Abs(file); err == nil {
			s.dir = filepath.Dir(abs)
		} else {
			s.dir = filepath.Dir(file)
		}
	}
	// A byte order mark, which some editors write first, is no key.
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	var p unstable.Parser
	p.Reset(data)
	table := ""
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table:
			key, line := keyOf(&p, e)
			if !slices.Contains(sections, key) {
				return nil, &SpecError{File: file, Line: line, Err: fmt.Errorf("unknown table [%s], want [%s]", key, strings.Join(sections, "], ["))}
			}
			table = key
		case unstable.ArrayTable:
			key, line := keyOf(&p, e)
			return nil, &SpecError{File: file, Line: line, Err: fmt.Errorf("[[%s]]: arrays of tables are not scenario keys", key)}
		case unstable.KeyValue:
			key, line := keyOf(&p, e)
			if table != "" {
				key = table + "." + key
			}
			if err := s.setNode(&p, key, line, e.Value()); err != nil {
				return nil, err
			}
		}
	}
	if err := p.Error(); err != nil {
		return nil, &SpecError{File: file, Line: errorLine(&p, data, err), Err: fmt.Errorf("toml: %v", err)}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// keyOf returns a table's or key-value's dotted key and its line.
func keyOf(p *unstable.Parser, e *unstable.Node) (string, int) {
	var parts []string
	line := 0
	it := e.Key()
	for it.Next() {
		n := it.Node()
		if line == 0 {
			line = p.Shape(n.Raw).Start.Line
		}
		parts = append(parts, string(n.Data))
	}
	return strings.Join(parts, "."), line
}

// errorLine returns the line of a parser error's highlight, or 0.
func errorLine(p *unstable.Parser, data []byte, err error) int {
	var pe *unstable.ParserError
	if !errors.As(err, &pe) || len(pe.Highlight) == 0 || cap(pe.Highlight) > cap(data) {
		return 0
	}
	off := cap(data) - cap(pe.Highlight)
	if off < 0 || off+len(pe.Highlight) > len(data) {
		return 0
	}
	return p.Shape(unstable.Range{Offset: uint32(off), Length: uint32(len(pe.Highlight))}).Start.Line
}

// setNode sets key from a TOML value, checking its type; an inline table
// sets its keys under key.
func (s *Spec) setNode(p *unstable.Parser, key string, line int, v *unstable.Node) error {
	fail := func(format string, args ...any) error {
		return &SpecError{File: s.file, Line: line, Key: key, Err: fmt.Errorf(format, args...)}
	}
	if v.Kind == unstable.InlineTable {
		it := v.Children()
		for it.Next() {
			kv := it.Node()
			sub, subLine := keyOf(p, kv)
			if err := s.setNode(p, key+"."+sub, subLine, kv.Value()); err != nil {
				return err
			}
		}
		return nil
	}
	f := exactField(key)
	if f == nil {
		if _, rest, ok := strings.Cut(key, "."); ok && exactField(rest) != nil {
			return fail("unknown key: %s is a top-level key (write it before any [table])", rest)
		}
		return fail("unknown key (see 'fedaux scenario keys')")
	}
	if first, ok := s.lines[key]; ok {
		return fail("set twice (first at line %d)", first)
	}
	text, err := valueText(f.Type, v)
	if err != nil {
		return fail("%v", err)
	}
	if err := f.set(s, text); err != nil {
		return fail("%v", err)
	}
	s.lines[key] = line
	s.explicit[key] = true
	return nil
}

func exactField(key string) *Field {
	all := fields()
	for i := range all {
		if all[i].Key == key {
			return &all[i]
		}
	}
	return nil
}

// valueText spells a TOML value as Set takes it, checking that its kind
// suits the key's type.
func valueText(typ string, v *unstable.Node) (string, error) {
	kind := map[unstable.Kind]string{
		unstable.String: "a string", unstable.Integer: "an integer", unstable.Float: "a number",
		unstable.Bool: "a boolean", unstable.Array: "a list",
	}[v.Kind]
	if kind == "" {
		kind = "a " + strings.ToLower(v.Kind.String())
	}
	want := map[string]string{
		"integer": "an integer", "number": "a number", "string": "a string (in quotes)",
		"bool": "true or false", "numbers": "a list of numbers such as [0.2, 0.6]",
		"setting": "a string, number or boolean",
	}[typ]
	bad := fmt.Errorf("got %s, want %s", kind, want)
	switch v.Kind {
	case unstable.String:
		if typ == "string" || typ == "setting" {
			return string(v.Data), nil
		}
	case unstable.Bool:
		if typ == "bool" || typ == "setting" {
			return string(v.Data), nil
		}
	case unstable.Integer:
		if typ == "integer" || typ == "number" || typ == "numbers" || typ == "setting" {
			n, err := strconv.ParseInt(string(v.Data), 0, 64)
			if err != nil {
				return "", fmt.Errorf("integer %s out of range", v.Data)
			}
			return strconv.FormatInt(n, 10), nil
		}
	case unstable.Float:
		if typ == "number" || typ == "numbers" || typ == "setting" {
			x, err := strconv.ParseFloat(strings.ReplaceAll(string(v.Data), "_", ""), 64)
			if err != nil {
				return "", fmt.Errorf("bad number %s", v.Data)
			}
			return strconv.FormatFloat(x, 'g', -1, 64), nil
		}
	case unstable.Array:
		if typ == "numbers" {
			var parts []string
			it := v.Children()
			for it.Next() {
				t, err := valueText("number", it.Node())
				if err != nil {
					return "", fmt.Errorf("list element: %v", err)
				}
				parts = append(parts, t)
			}
			if len(parts) == 0 {
				return "", fmt.Errorf("empty list, want one number per group")
			}
			return strings.Join(parts, ","), nil
		}
	}
	return "", bad
}

// Render writes s as a scenario file that ParseSpec reads back to the
// same scenario: every key that applies, each with its doc as a comment,
// and the run settings the file does not set as commented-out defaults.
func (s *Spec) Render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# fedaux scenario %q. Run it with: fedaux run -scenario FILE\n", s.Name)
	b.WriteString("# Keys left out take their defaults; 'fedaux scenario keys' lists them all.\n")
	table := ""
	all := fields()
	for i := range all {
		f := &all[i]
		sec := f.Section()
		if !s.applies(f) {
			continue
		}
		if sec != table {
			table = sec
			fmt.Fprintf(&b, "\n[%s]\n", sec)
		}
		val := f.get(s)
		if sec == "run" && val == "" {
			c := s.Config()
			short := strings.TrimPrefix(f.Key, "run.")
			def, _ := c.Get(short)
			fmt.Fprintf(&b, "# %s = %s  # %s\n", short, tomlValue(f.Type, def), f.Doc)
			continue
		}
		writeComment(&b, f.Doc)
		_, short, ok := strings.Cut(f.Key, ".")
		if !ok {
			short = f.Key
		}
		fmt.Fprintf(&b, "%s = %s\n", short, tomlValue(f.Type, val))
	}
	return b.String()
}

// applies reports whether a key means something for s, and so is written.
func (s *Spec) applies(f *Field) bool {
	sbm := s.IsSBM()
	switch f.Section() {
	case "sbm":
		if !sbm {
			return false
		}
		switch f.Key {
		case "sbm.feature_dim", "sbm.noise", "sbm.mean_scale":
			return s.SBM.Features == "gaussian"
		}
	case "partition":
		if sbm {
			return false
		}
		m := s.method()
		switch f.Key {
		case "partition.beta":
			return m == "label-skew" || s.Partition.Fallback == "label-skew"
		case "partition.file", "partition.fallback":
			return m == "file"
		}
	case "split":
		return s.method() != "file" || s.Partition.Fallback != ""
	}
	switch f.Key {
	case "normalize":
		return !sbm
	case "memlimit":
		return s.MemLimit != ""
	case "metric":
		return s.Metric != ""
	}
	return true
}

// method is the partition method in force: the one set, else blocks for
// an SBM and multilevel for a graph file.
func (s *Spec) method() string {
	switch {
	case s.Partition.Method != "":
		return s.Partition.Method
	case s.IsSBM():
		return "blocks"
	}
	return "multilevel"
}

func writeComment(b *strings.Builder, doc string) {
	line := "#"
	for _, w := range strings.Fields(doc) {
		if len(line)+1+len(w) > 78 && line != "#" {
			b.WriteString(line + "\n")
			line = "#"
		}
		line += " " + w
	}
	b.WriteString(line + "\n")
}

// tomlValue spells a key's text as a TOML value.
func tomlValue(typ, v string) string {
	switch typ {
	case "string":
		return tomlString(v)
	case "numbers":
		return "[" + strings.ReplaceAll(v, ",", ", ") + "]"
	case "setting":
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			return v
		}
		return tomlString(v)
	}
	return v
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
