// Package soak holds rein's soak test in CI size: random-logit decoding of a
// sample of real JSON Schemas (every 20th MaskBench schema and every schema
// of the JSON Schema Test Suite, draft 2020-12) under Llama-3's vocabulary,
// each generated document checked as JSON, by the JSON Schema front-end's own
// instance validator, and by the suite's verdict where the document is one
// of its test instances. Strict mode must accept no invalid document.
//
// The package has no code outside its test; the soak lives here so that it
// runs as its own test binary, apart from the unit tests it would slow down.
package soak
