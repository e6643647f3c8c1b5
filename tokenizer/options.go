package tokenizer

// Option adjusts a loader.
type Option func(*options)

type options struct {
	name    string
	config  string
	pattern string
}

func newOptions(opts []Option) options {
	var o options
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// WithName names the vocabulary (see Vocab.Name).
func WithName(name string) Option { return func(o *options) { o.name = name } }

// WithConfig gives LoadHF the path of tokenizer_config.json, which must then
// exist, instead of looking beside tokenizer.json.
func WithConfig(path string) Option { return func(o *options) { o.config = path } }

// WithPattern sets the pre-tokenizer regex of a tiktoken or GPT-2 vocabulary
// (regexp2 syntax, as the patterns below), for files the loader does not
// recognize by name.
func WithPattern(pattern string) Option { return func(o *options) { o.pattern = pattern } }
