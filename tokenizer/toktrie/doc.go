// Package toktrie is a vocabulary's token trie: the tokens sorted by bytes,
// so that walking them in order is a depth-first walk of the trie of their
// byte strings. It is built once per vocabulary (tokenizer.Vocab.Trie) and
// shared by everything that walks tokens by prefix: rein's mask walks it to
// classify the vocabulary at an automaton node, and jump-forward asks it
// whether some token could run past forced bytes. An engine can use it the
// same way, to find the tokens that start with some bytes.
//
// # Layout
//
// Sorted position i (0 to Len-1) holds one token: its id (ID), its bytes
// (Token) and how many leading bytes it shares with the token before it
// (LCP). A depth-first walk keeps the first LCP(i) bytes of the previous
// token's path and goes on with the rest of Token(i).
//
// The trie's nodes are numbered along the walk: the node of depth d on
// token i's path, first met at i (LCP(i) < d), is Node(i, d). Its tokens are
// the positions from i up to End; Rest summarizes the bytes they have below
// the node, so that a walk can decide a whole subtree at once (rein's mask
// accepts a subtree whose every remaining byte loops in the automaton, and
// skips one whose first byte is refused).
//
// For prefix questions (Prefix, Extends) the trie keeps per first byte and
// per first two bytes where their tokens start and how long the longest is,
// and the long tokens apart, so most questions cost a look-up.
//
// The package knows token bytes only: which ids are special, stop tokens or
// holes is the caller's business (New leaves out the ids it is given no
// bytes for), and it does not import package tokenizer.
package toktrie
