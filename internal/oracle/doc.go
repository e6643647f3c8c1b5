// Package oracle is a slow, obviously correct recognizer for rein's grammar IR.
// Tests use it as the independent reference that rein's compiled automata and
// token masks are checked against, so it shares no code with packages fsm and
// pda and favours plainness over speed.
//
// New turns a grammar.Grammar into a context-free grammar over bytes (cfg.go):
// every rule is a nonterminal; byte literals become byte terminals; a
// code-point class becomes the alternatives of byte-range sequences that spell
// exactly the UTF-8 encodings of its code points (utf8.go), so a prefix that
// splits a multi-byte character is judged exactly and invalid UTF-8 or
// surrogates never match; sequences, alternations and repetitions become
// helper nonterminals, and regular-expression terminals are converted from
// their regexp/syntax tree into the same pieces (convert.go). Free text that
// must not hold some strings (grammar.Text) becomes a left-linear grammar with
// one nonterminal per "longest suffix so far that starts an excluded string",
// worked out with plain string operations (text.go). Nonterminals that derive
// no input are removed with every production that uses them, so that each
// remaining symbol can be completed.
//
// NewForVocab does the same for a vocabulary, whose tokens become input
// symbols too (tokens.go): a token terminal is a terminal that matches one
// whole token by its id, decided by the vocabulary's own methods as the IR
// documents it, and a LitTokens literal lets each special token's text in it
// (leftmost, longest first) be either its bytes or that token. The input is
// then a sequence of bytes (Feed) and whole tokens (FeedToken).
//
// A Recognizer runs Earley's algorithm over that grammar one input symbol at a
// time (earley.go), with Aycock and Horspool's treatment of nullable
// nonterminals. Because every symbol is productive, the input so far is a
// viable prefix exactly when the current Earley set is non-empty, and a
// sentence when that set holds a completed root item that started at offset
// 0. Earley sets are immutable once built, so a clone shares them and builds
// only its own.
//
// A Matcher (matcher.go) is the token-level reference for package mask: which
// token ids may come next and what accepting one does (as text, as a token,
// or as the end), from Recognizers and the rules mask implements. An
// ordinary token that is both text and a token terminal's is read both ways:
// the Matcher keeps one Recognizer per surviving path of readings, and
// allows what any of them allows.
package oracle
