// Package rein is the part of rein an inference engine's scheduler talks
// to: a Compiler that turns requests' grammars into shared compiled grammars
// without ever holding up the engine, and failure isolation that keeps a bad
// grammar inside its own request.
//
// A Compiler is bound to one vocabulary and safe for concurrent use. It
// compiles regular expressions, JSON Schemas, GBNF grammars, any JSON value
// and choice lists (see Spec), caches the compiled grammars by kind, source
// and options in an LRU cache with a byte budget, and runs identical
// concurrent requests as one compile. CompileAsync returns at once with a
// Handle the scheduler polls: a request whose grammar is still compiling
// waits in the queue (Ready is false) while the batch runs; once Ready, it
// joins the batch with a Matcher of Handle.Compiled, or fails alone with
// Handle.Err. Compiles honour the requests' contexts: a request whose
// context ends is Ready with that error at once, and a compile nobody waits
// for any more, or past CompilerOptions.Timeout, stops within milliseconds
// and frees its worker. Failed compiles are cached like successful ones, so
// a retried bad spec costs nothing.
//
// The batch itself is filled by a mask.BatchFiller: one call per step fills
// the bitmask rows of the constrained sequences on a pool of goroutines,
// allocation-free once warm, leaving unconstrained rows alone. Failures stay
// in their request everywhere: a front-end error, a panic while compiling
// (recovered into a *mask.PanicError), a panic while filling a row (that
// row's error, the row allowing nothing), a refused token or misuse of a
// matcher (mask.Matcher.Accept and Rollback return ErrRejected,
// ErrTerminated, ErrRollback) are that request's error and never the
// process's.
//
// The scheduler loop, in outline:
//
//	h := compiler.CompileAsync(req.Context(), rein.JSONSchema(req.Schema))
//	// each step:
//	//   move requests whose h.Ready() into the batch (or fail them on h.Err())
//	//   filler.Fill(matchers, bitmask, rows, errs)   // constrained sequences only
//	//   mask.Apply(logits, width, bitmask, positions) // bitmask row k masks logits row positions[k]
//	//   sample; m.Accept(token), failing the request on an error
//
// examples/engine is the whole loop, runnable.
package rein
