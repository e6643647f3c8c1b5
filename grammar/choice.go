package grammar

import "fmt"

// Choice returns a grammar, one rule "root", that matches exactly one of
// options, byte for byte. Options may repeat and may be empty (the empty
// string is then one of the choices). An empty list is an error; so is one
// of more than lim.Enum options or more than lim.ChoiceBytes bytes in all,
// wrapping ErrLimit (a zero lim means the defaults).
func Choice(options []string, lim Limits) (*Grammar, error) {
	lim = lim.WithDefaults()
	if len(options) == 0 {
		return nil, &Error{Source: "choice", Msg: "no options to choose from"}
	}
	if len(options) > lim.Enum {
		return nil, &Error{Source: "choice", Err: ErrLimit, Msg: fmt.Sprintf("%d options, more than Limits.Enum (%d)", len(options), lim.Enum)}
	}
	n := 0
	for _, o := range options {
		n += len(o)
	}
	if n > lim.ChoiceBytes {
		return nil, &Error{Source: "choice", Err: ErrLimit, Msg: fmt.Sprintf("%d bytes of options, more than Limits.ChoiceBytes (%d)", n, lim.ChoiceBytes)}
	}
	alts := make([]*Expr, len(options))
	for i, o := range options {
		alts[i] = Lit(o)
	}
	g := &Grammar{Rules: []Rule{{Name: "root", Body: Or(alts...)}}}
	if err := g.Validate(); err != nil {
		return nil, &Error{Source: "choice", Msg: err.Error(), Err: err}
	}
	return g, nil
}
