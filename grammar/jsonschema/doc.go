// Package jsonschema compiles JSON Schema (drafts 4, 6, 7, 2019-09 and
// 2020-12) into a grammar.Grammar for the JSON documents the schema accepts.
// Compile is the entry point; Validate runs the front-end's own instance
// validator, for tests that check generated documents against the schema.
//
// A schema goes through the package in stages, one file each:
//
//   - scan.go bounds the sizes of a schema document in one pass over its
//     bytes, before it is parsed (Options.Limits: SchemaBytes,
//     SchemaDepth, SchemaStringBytes, SchemaKeyBytes, SchemaNumberDigits).
//   - document.go reads the schema with gjson into a tree that keeps
//     object keys in document order, registers $id, $anchor and
//     $dynamicAnchor resources, hashes every subschema (annotations left
//     out) and resolves $ref: URIs, anchors, JSON pointers with ~0 ~1 and
//     percent escapes, remote documents through Options.LoadRef.
//   - keywords.go and dnf.go normalize a subschema into branches: a
//     disjunction of plain conjunctive records (schema, in schema.go).
//     $ref, allOf, anyOf, oneOf, not, if/then/else and dependencies are
//     distributed over the node's own keywords, and what they combine is
//     intersected (merge.go). Subschemas below a branch stay unnormalized
//     until their own rule is compiled, which keeps recursion finite.
//   - not.go pushes negation down to constraints that can be negated and
//     proves oneOf alternatives disjoint; validate.go evaluates schemas on
//     constant values (enum and const are filtered by the rest of their
//     schema).
//   - compile.go turns normalized subschemas into rules: one rule per
//     distinct normalized subschema, shared by every place that uses it.
//     object.go, array.go, string.go and number.go compile the types;
//     pattern.go translates ECMA-262 patterns; automaton.go builds fsm's
//     automata over code points, within Limits.PatternStates, for what one
//     regex cannot say (pattern and length together, not pattern, keys that
//     are not declared names, patternProperties regions, multipleOf) and
//     turns them back into expressions.
//
// Rules stay small because the pushdown compiler determinizes each rule body
// on its own: strings and numbers are single rules with character classes
// inside, escape sequences and long counted repetitions are rules of their
// own, and the separator automaton of large objects is split into rules every
// few properties.
//
// Errors are *grammar.Error values with Source "jsonschema" and the JSON
// pointer of the offending keyword (or a grammar.ErrorList of them). They wrap
// grammar.ErrUnsupported for what a grammar cannot enforce and
// grammar.ErrLimit when a bound of Options.Limits is crossed. A string or
// number constraint whose automaton outgrows Limits.PatternStates wraps
// both: in Lenient mode it is dropped with a warning, like any other
// constraint that cannot be enforced.
//
// The package knows nothing of tokens or automata beyond the small ones it
// builds for itself: it produces a Grammar, which package pda compiles.
package jsonschema
