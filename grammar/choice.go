package grammar

// Choice returns a grammar, one rule "root", that matches exactly one of
// options, byte for byte. Options may repeat and may be empty (the empty
// string is then one of the choices). An empty list is an error.
func Choice(options []string) (*Grammar, error) {
	if len(options) == 0 {
		return nil, &Error{Source: "choice", Msg: "no options to choose from"}
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
