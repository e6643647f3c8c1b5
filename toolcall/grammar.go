package toolcall

import (
	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/structtag"
)

// Grammar compiles r's structural tag (see StructuralTag) into a grammar
// with package structtag. Its markers are literals that may also be the
// vocabulary's special tokens of the same text; package mask resolves them.
func Grammar(r Request, opts structtag.Options) (*grammar.Grammar, error) {
	data, err := StructuralTag(r)
	if err != nil {
		return nil, err
	}
	return structtag.Compile(data, opts)
}
