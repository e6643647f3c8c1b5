package grammar

// Limits is the one set of bounds rein puts on what a single grammar may
// cost: the size of its source, the work of compiling it, and the work of
// matching it. Every stage reads its fields from the same value (the JSON
// Schema, GBNF and regex front-ends, the pushdown compiler in pda, the token
// index in mask), and rein.CompilerOptions and mask.Options carry it. A zero
// field means its default, shown in DefaultLimits; a negative field too.
//
// Each bound is a counter, checked before the memory or time it guards is
// spent, so a request that crosses one fails alone, at once, with an error
// wrapping ErrLimit that names the field. No limit depends on the input
// document the model writes: match-time work is bounded by the grammar.
type Limits struct {
	// Sources.

	// GBNFBytes bounds the bytes of one GBNF source.
	GBNFBytes int
	// GBNFRepeat bounds the count of one {m,n} repetition in GBNF.
	GBNFRepeat int
	// GBNFDepth bounds the nesting of parentheses in GBNF.
	GBNFDepth int
	// RegexBytes bounds the bytes of one regular expression, a JSON Schema
	// pattern included.
	RegexBytes int
	// SchemaBytes bounds the bytes of one JSON Schema document, remote ones
	// included.
	SchemaBytes int
	// SchemaStringBytes bounds one string as written in a schema.
	SchemaStringBytes int
	// SchemaKeyBytes bounds one object key as written in a schema.
	SchemaKeyBytes int
	// SchemaNumberDigits bounds the digits of one number in a schema: bounds,
	// multipleOf, const.
	SchemaNumberDigits int
	// SchemaDepth bounds the nesting of a schema document.
	SchemaDepth int
	// SchemaNodes bounds the JSON values of all schema documents together.
	SchemaNodes int
	// SchemaDocuments bounds the remote documents loaded through a loader.
	SchemaDocuments int
	// Enum bounds the values of one enum, the options of one choice list,
	// the items of one GBNF token list (<[1,5-9]>) and the strings of one
	// %text -(...) exclusion.
	Enum int
	// ChoiceBytes bounds the bytes of all the options of one choice list.
	ChoiceBytes int
	// TextExcludeBytes bounds the bytes of the strings one free text
	// excludes (grammar.Text: triggers, tag ends, excludes of a structural
	// tag); its automaton has a state per byte of them.
	TextExcludeBytes int
	// Repeat bounds a bounded count such as maxLength or maxItems.
	Repeat int
	// Alternatives bounds the branches of one subschema after anyOf and
	// oneOf are distributed.
	Alternatives int
	// AnyOrderRequired bounds the required properties of one object that
	// jsonschema.OrderAny tracks exactly; the grammar needs 2^n rules for n
	// of them, so this stays small.
	AnyOrderRequired int
	// AnyOrderProperties bounds the declared properties of one object that
	// jsonschema.OrderAuto accepts in any order; the grammar needs a rule per
	// set of them, so larger objects keep the declared order.
	AnyOrderProperties int

	// Grammar and automata.

	// Rules bounds the rules of a grammar.
	Rules int
	// ExprNodes bounds the expression nodes of a whole grammar.
	ExprNodes int
	// PatternStates bounds the DFA states of one code-point automaton that
	// the JSON Schema front-end builds (patterns with length bounds or
	// formats, negated patterns, patternProperties, property names,
	// multipleOf). The constraint that needs more is unsupported: an error
	// wrapping ErrUnsupported as well as ErrLimit, or in Lenient mode a
	// warning.
	PatternStates int
	// RuleStates bounds the DFA states of one rule in the pushdown automaton.
	RuleStates int
	// TotalStates bounds the DFA states of all rules together.
	TotalStates int
	// NFAStates bounds the NFA states while one rule is built (repetitions
	// are expanded).
	NFAStates int

	// Matching.

	// StepWork bounds the stack entries one byte may expand at match time.
	// Past it the byte is refused and the sequence fails with an error
	// wrapping ErrLimit; other sequences are not affected.
	StepWork int
	// WalkStates bounds the distinct stack shapes the token index visits for
	// one mask; past it the mask is built the slow, exact way.
	WalkStates int
}

// DefaultLimits returns the default of every field of Limits. It is generous
// for real grammars (the largest MaskBench schema uses a small fraction of
// each) and small enough that no single request can exhaust a server.
func DefaultLimits() Limits { return defaultLimits }

// defaultLimits is unexported so that no importer can change the process's
// defaults.
var defaultLimits = Limits{
	GBNFBytes:          1 << 20,
	GBNFRepeat:         10000,
	GBNFDepth:          500,
	RegexBytes:         1 << 20,
	SchemaBytes:        8 << 20,
	SchemaStringBytes:  1 << 20,
	SchemaKeyBytes:     4096,
	SchemaNumberDigits: 100,
	SchemaDepth:        512,
	SchemaNodes:        1 << 20,
	SchemaDocuments:    64,
	Enum:               10000,
	ChoiceBytes:        1 << 20,
	TextExcludeBytes:   1 << 14,
	Repeat:             1 << 20,
	Alternatives:       1024,
	AnyOrderRequired:   6,
	AnyOrderProperties: 6,
	Rules:              20000,
	ExprNodes:          4 << 20,
	PatternStates:      4000,
	RuleStates:         20000,
	TotalStates:        200000,
	NFAStates:          400000,
	StepWork:           1 << 12,
	WalkStates:         1 << 13,
}

// WithDefaults returns l with every zero or negative field replaced by its
// default from DefaultLimits().
func (l Limits) WithDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	d := defaultLimits
	def(&l.GBNFBytes, d.GBNFBytes)
	def(&l.GBNFRepeat, d.GBNFRepeat)
	def(&l.GBNFDepth, d.GBNFDepth)
	def(&l.RegexBytes, d.RegexBytes)
	def(&l.SchemaBytes, d.SchemaBytes)
	def(&l.SchemaStringBytes, d.SchemaStringBytes)
	def(&l.SchemaKeyBytes, d.SchemaKeyBytes)
	def(&l.SchemaNumberDigits, d.SchemaNumberDigits)
	def(&l.SchemaDepth, d.SchemaDepth)
	def(&l.SchemaNodes, d.SchemaNodes)
	def(&l.SchemaDocuments, d.SchemaDocuments)
	def(&l.Enum, d.Enum)
	def(&l.ChoiceBytes, d.ChoiceBytes)
	def(&l.TextExcludeBytes, d.TextExcludeBytes)
	def(&l.Repeat, d.Repeat)
	def(&l.Alternatives, d.Alternatives)
	def(&l.AnyOrderRequired, d.AnyOrderRequired)
	def(&l.AnyOrderProperties, d.AnyOrderProperties)
	def(&l.Rules, d.Rules)
	def(&l.ExprNodes, d.ExprNodes)
	def(&l.PatternStates, d.PatternStates)
	def(&l.RuleStates, d.RuleStates)
	def(&l.TotalStates, d.TotalStates)
	def(&l.NFAStates, d.NFAStates)
	def(&l.StepWork, d.StepWork)
	def(&l.WalkStates, d.WalkStates)
	return l
}
