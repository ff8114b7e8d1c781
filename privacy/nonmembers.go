package privacy

import "fmt"

// NonMembers says where an attack's non-members come from.
type NonMembers int

const (
	// FromTest draws the non-members uniformly from the client's own test
	// nodes, which no client trained on (the paper's attack).
	FromTest NonMembers = iota
	// FromOthers draws them uniformly from the nodes of the other clients,
	// any role (a variant of the paper's attack): the client never trained on them, but
	// their own clients may have, and their graphs differ from its own.
	FromOthers
)

// nonMemberNames are the names of the kinds, as flags and results spell them.
var nonMemberNames = [...]string{FromTest: "test", FromOthers: "other"}

// NonMemberKinds lists the kinds, in the order results hold them.
func NonMemberKinds() []NonMembers { return []NonMembers{FromTest, FromOthers} }

// String returns "test" or "other".
func (n NonMembers) String() string {
	if n < 0 || int(n) >= len(nonMemberNames) {
		return fmt.Sprintf("NonMembers(%d)", int(n))
	}
	return nonMemberNames[n]
}

// ParseNonMembers returns the kind named s ("test" or "other").
func ParseNonMembers(s string) (NonMembers, error) {
	for n, name := range nonMemberNames {
		if s == name {
			return NonMembers(n), nil
		}
	}
	return 0, fmt.Errorf("privacy: unknown non-members %q (have test, other)", s)
}

// MarshalText implements encoding.TextMarshaler.
func (n NonMembers) MarshalText() ([]byte, error) {
	if n < 0 || int(n) >= len(nonMemberNames) {
		return nil, fmt.Errorf("privacy: invalid non-members kind %d", int(n))
	}
	return []byte(n.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (n *NonMembers) UnmarshalText(b []byte) error {
	v, err := ParseNonMembers(string(b))
	if err != nil {
		return err
	}
	*n = v
	return nil
}

// describe says where the kind's non-members come from, for reports.
func (n NonMembers) describe() string {
	if n == FromOthers {
		return "an equal-size uniform sample of the other clients' nodes (any role), each scored by running the client's model on its own client's graph"
	}
	return "an equal-size uniform sample of the client's own test nodes"
}
