// Package jumpforward finds the bytes a grammar forces next and turns them
// into canonical tokens, so an engine can append them without running the
// model for each one (SGLang's jump-forward decoding, llguidance's
// fast-forward tokens).
//
// # Forced bytes
//
// After the text accepted so far, the forced string is the longest string
// that every continuation starts with: `{"name":"` at the start of an object
// whose first property is required, `ryffindor"` after `"G` in an enum of
// Hogwarts houses, the rest of a const or of a regex literal. It stops before
// the first point where the grammar may end or where two bytes may come. It
// runs across rule calls and returns and across every stack of the matcher's
// graph-structured stack, and it is byte-exact: when only the first bytes of
// a character are forced, it ends inside the character.
//
// Keys are forced only where one key can come next. JSON Schema's default
// property order (jsonschema.OrderAuto) lets the declared properties of
// small objects come in any order; compile with jsonschema.OrderDeclared to
// have each next declared key forced, as the examples here do.
//
// The matcher's pushdown state computes it (as pda.State.Forced does) by
// stepping itself, one byte at a time while exactly one byte is possible, and
// rolling back; where the state is one stack inside a rule, it reads the
// whole run at once from the rule automaton's singular paths (an fsm.Paths
// table built on first use: the compressed view of the automata). It does not allocate,
// so a step where nothing is forced costs well under a microsecond.
//
// # Re-tokenization
//
// The forced bytes become tokens by the vocabulary's own Encoder, so that the
// sequence stays the tokenization the model was trained on (appending
// "order" where the text goes on with "Id" would make the model see "order",
// "Id" instead of its usual "orderId"). Next re-encodes a window of the last
// accepted tokens (at least two tokens and eight bytes, further back when its
// first token would change) followed by the forced bytes. Accepted tokens
// the encoding changes are rolled back: after the model wrote `Harry` and `"`,
// forcing `,"house":"` replaces `"` with `","`. The window never reaches
// back past a special token (one a token terminal took): the encoder would
// spell it as text. Token terminals themselves are never forced bytes.
//
// Tokens at the end of the encoding may merge with what the model writes
// next: `":` becomes `":"` when a string follows, `":{"` when an object
// does. Next keeps only the tokens that end by the first position from which
// some token of the vocabulary spells the rest of the text and goes on with
// a byte the grammar allows next (the vocabulary's token trie, which the
// Vocab and its copies share, answers that in a few look-ups); the bytes
// after that position are left to the model, which writes them within a
// canonical token. When only the end of the grammar may follow, every token
// is kept. Bytes of a character the forced string leaves unfinished are left
// to the model too. The test is conservative where the pre-tokenizer would
// keep a token from forming; what it does not see is a merge several bytes
// into the model's text that re-splits a word before that position, which
// BPE allows in principle and which never happens on MaskBench.
//
// On the valid instances of MaskBench (10,469 documents), decoded by a model
// that wants exactly each document, jump-forward delivers 14.3% of the
// tokens on compact JSON with the Llama-3 tokenizer, and every token of
// every sequence is one of the Encoder's own encoding of the document
// (internal/maskbench and cmd/maskbench -jumpforward measure it).
//
// # Append-only
//
// An engine that cannot rewrite its KV cache sets Options.AppendOnly: Next
// then never rolls back. A step whose canonical encoding would replace
// accepted tokens appends nothing, and the model writes the merging token
// itself (`","` where it had written `"`); where the model has already
// left the Encoder's tokenization at the end of the sequence, the forced
// bytes are encoded from the end of the sequence on, since no step could
// return to it without a rollback.
//
// On the same 10,480 documents (compact JSON, Llama-3), a model that writes
// the Encoder's own tokens never ends one where forced bytes would merge
// into it: both modes deliver 111,349 of 777,571 tokens (14.3%) and neither
// rolls back. A model that writes each JSON lexeme in tokens of its own (`"`
// alone after a string) is where they differ: the default step rolls back
// 161,775 tokens and delivers 20.8% of the final tokens, the append-only
// step 12.6% with no rollback, and the model runs 985,965 steps against
// 970,736 (1.6% more) for the same documents (cmd/maskbench -jumpforward
// [-append-only] [-lexemes]).
//
// # Use
//
// An engine keeps a Forwarder next to each Matcher and calls Next once per
// step, after accepting the model's token:
//
//	jf := fw.Next(matcher, seq)
//	seq = append(seq[:len(seq)-jf.Rollback], jf.Tokens...)
//
// Next applies the step to the matcher itself, through the matcher's own
// Rollback and AcceptToken, and returns it so the engine can edit its own
// sequence and KV cache the same way; Forced only reports the forced bytes,
// leaving the matcher as it is. The package-level Next does the same without
// a Forwarder, at the cost of making one per call. A step where something is
// forced allocates, in the Encoder; one where nothing is does not.
//
// jumpforward reads tokens and grammar state only through packages mask,
// pda and tokenizer; it never samples and never sees logits.
package jumpforward
