// Package mask turns a compiled grammar and a vocabulary into token masks.
//
// Compile compiles a grammar into the pushdown automaton of package pda and
// indexes it against a tokenizer.Vocab; Options carry grammar.Limits. For every
// automaton state, tokens are classified lazily (on first visit, memoized and
// shared by all matchers) into accepted (consumed without leaving the rule,
// decided without the stack), rejected, and uncertain (they run past the end
// of the rule, so the real stack decides). A Matcher holds one sequence's
// state: FillBitmask ORs the accepted sets of the current stack tops and
// checks only the uncertain tokens, walking them in byte order so shared
// prefixes are walked once.
//
// A node's first classification is paid by the first mask that meets it,
// so it is made cheap: a wide node (one whose first bytes start most of the
// vocabulary, as a string's inside does) is classified from rows of the
// vocabulary's tokens without some bytes, walking only the tokens that may
// leave its rule (the bytes are those that keep the walk alive along a
// chain of positions, in a closure, or through layers of positions with
// several states alike: wide.go); a narrow one walks the trie below the first bytes it
// takes; the classifications of wide nodes are shared by the grammars of a
// vocabulary (SetSharedIndexBudget). A wide node that most bytes lead into
// a loop is derived from the loop's classification, walking only the
// tokens whose walks never meet the loop's (the positions of a key that
// must not be one of some names: derive.go), and the configurations a walk
// builds are kept for the next classification of the same grammar. A node a
// few characters before its rule's end, which nearly every token runs past
// (a position near the end of a long string's chunk), is classified with
// the node its rule returns to, once per shape of that node (within.go).
// Where a mask meets several wide nodes at once that would each walk the
// trie (the key rules an object's unanchored patternProperties split its
// keys into), they are classified together in one walk, its uncertain
// tokens split among them (union.go). Compiled.Warm, WarmNext and
// WarmWithin classify nodes ahead of the matchers, and IndexStats counts
// the work done on the decode path and ahead of it.
//
// Grammars may name whole tokens (token terminals: grammar.Token,
// TokenIDs, TokenSet, AnyToken, and grammar.LitTokens literals). Compile
// resolves them against the vocabulary:
//   - a name is the token Vocab.TokenID gives for that text;
//   - a set without Negate holds its names and ids; ids outside the
//     vocabulary, and holes, are left out;
//   - a negated set holds every token it does not name except stop tokens
//     and holes;
//   - a LitTokens literal matches its text, where each special token's text
//     in it (leftmost, longest) may also be that token.
//
// Special tokens are allowed exactly where a terminal names them; stop
// tokens where one names them or where the grammar may end. An ordinary
// token that a terminal also holds is read both ways, and the matcher keeps
// both readings. A literal that is exactly a special token's text is
// refused (ErrSpecialLiteral), since no text matches a special token; a
// literal that merely contains one, or a class or regex that matches it,
// stays text, spelled by ordinary tokens.
//
// A rule marked grammar.Rule.Unique (JSON Schema's uniqueItems) reads an
// array whose items must be distinct JSON values, which no pushdown state
// can hold: the Matcher keeps a small run beside the automaton that
// follows the open array, checks each item as it completes (objects and
// arrays, where items may be any value, in a canonical form with members
// sorted: unique_value.go), and removes
// from the mask the tokens that would repeat an item or leave one able to
// end only on a value already there (unique.go). Rollback and Fork restore
// and copy it with the automaton.
//
// A Bitmask uses XGrammar's layout: rows of ceil(vocab/32) 32-bit words, bit j
// of word i allows token 32i+j. Apply masks float32 logits on the CPU; package
// cuda does the same on the GPU.
package mask
