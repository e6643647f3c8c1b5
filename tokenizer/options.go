package tokenizer

// LoadOptions adjusts a loader. It is passed by value as a loader's last
// argument; the zero value asks for the defaults. A loader ignores a field
// that does not apply to it: Config is read only by LoadHF (LoadHFBytes takes
// the config's bytes instead, and GPT-2 and tiktoken files have none), and
// Pattern only by the GPT-2 and tiktoken loaders (a tokenizer.json carries
// its own pre-tokenizer).
type LoadOptions struct {
	// Name names the vocabulary (see Vocab.Name).
	Name string
	// Config is LoadHF's path of tokenizer_config.json, which must then
	// exist, instead of looking beside tokenizer.json.
	Config string
	// Pattern is the pre-tokenizer regex of a tiktoken or GPT-2 vocabulary
	// (regexp2 syntax, as the patterns below), for files the loader does not
	// recognize by name.
	Pattern string
}
