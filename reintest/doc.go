// Package reintest holds helpers for the tests of programs that use rein,
// as net/http/httptest does for HTTP handlers: does a text match a grammar,
// and where does it stop matching; is a token sequence allowed, and which
// token is the first that is not; what does a seeded stand-in model write
// under the grammar's mask.
//
// Match runs a text through a fresh matcher as bytes (Matcher.AcceptText),
// so the tokenizer's choices do not matter: the Result says whether the
// grammar takes the whole text and may end there (Complete), takes it but
// needs more (Incomplete), or refuses a byte of it (Refused, with the
// offset of that byte). MatchTokens does the same for token ids, one
// Matcher.Accept at a time, and names the first token refused.
//
// Decode is an engine's loop with a fake model: logits that are 0 or a
// bias the test gives, masked with Matcher.FillBitmask and mask.Apply, a
// token sampled from their softmax by a seeded generator and accepted,
// until a stop token ends the output or the token budget runs out. The same
// seed gives the same output, and the output is always one the grammar
// accepts token by token.
//
// The Assert functions check Match and MatchTokens from a test, report a
// failure with testing.TB's Errorf, quoting the text around the byte where
// it stops matching, and return whether the check held. Compile compiles a
// rein.Spec or fails the test.
//
// Every function takes a *mask.Compiled, whatever made it (rein.Compiler,
// mask.Compile or Compile here), and leaves it as it was: each check runs a
// matcher of its own. None panics on a bad argument: a nil grammar, an id
// outside the vocabulary and bad options are refusals or errors.
package reintest
