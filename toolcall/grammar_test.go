package toolcall

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/structtag"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/pda"
	"github.com/reinlm/rein/tokenizer"
)

// vocabFor is the vocabulary each family's tables run on at token level
// (see testVocab for what each is).
var vocabFor = map[Format]string{
	Hermes:          "qwen3",
	Qwen3:           "qwen3",
	Qwen3Coder:      "qwen3",
	Llama3JSON:      "llama3.1",
	Llama3PythonTag: "llama3.1",
	MistralJSON:     "mistral-tools",
	MistralV11:      "mistral-tools",
	DeepSeekV3:      "qwen3+markers",
	DeepSeekV31:     "qwen3+markers",
	Harmony:         "qwen3+markers",
	KimiK2:          "qwen3+markers",
	GLM45:           "qwen3+markers",
	GLM47:           "qwen3+markers",
	MiniMaxM2:       "qwen3+markers",
	CohereCommandA:  "qwen3+markers",
}

// byteLevel are the families whose own vocabularies are not here: besides
// the synthetic vocabulary, their tables run byte by byte.
var byteLevel = map[Format]bool{
	DeepSeekV3: true, DeepSeekV31: true, Harmony: true, KimiK2: true,
	GLM45: true, GLM47: true, MiniMaxM2: true, CohereCommandA: true,
}

var (
	vocabsMu sync.Mutex
	vocabs   = map[string]*tokenizer.Vocab{}
)

// testVocab loads a vocabulary by name:
//   - qwen3: Qwen3's, as published (<tool_call> and <think> are added
//     tokens that are not special).
//   - llama3.1: Llama 3's with the two reserved special tokens that Llama
//     3.1 renamed, 128008 <|eom_id|> and 128010 <|python_tag|>.
//   - mistral-tools: Mistral 7B v0.1's with the control tokens of v0.3 that
//     the formats use at v0.3's ids: [TOOL_CALLS] 5 and [ARGS] 6 (both
//     special; they take the places of byte tokens <0x02> and <0x03>).
//   - qwen3+markers: a synthetic vocabulary for the families whose own
//     vocabularies are not here: Qwen3's, with each marker of those
//     families that Qwen3 lacks added as a token after its last id, special
//     but for GLM's argument markers (<arg_key>, </arg_key>, <arg_value>,
//     </arg_value>), which jsonschema's glm_xml style writes as plain text
//     and mask would refuse as special-token texts. It checks that the
//     markers work as single tokens; the families' real ids and their
//     ordinary tokens are not checked.
func testVocab(t *testing.T, name string) *tokenizer.Vocab {
	t.Helper()
	vocabsMu.Lock()
	defer vocabsMu.Unlock()
	if v, ok := vocabs[name]; ok {
		return v
	}
	var v *tokenizer.Vocab
	var err error
	switch name {
	case "qwen3":
		v, err = tokenizer.LoadHF(datadir.Tokenizer(t, "qwen3", "tokenizer.json"), tokenizer.LoadOptions{})
	case "llama3.1":
		r := strings.NewReplacer("<|reserved_special_token_4|>", "<|eom_id|>", "<|reserved_special_token_5|>", "<|python_tag|>")
		tj := readFile(t, datadir.Tokenizer(t, "llama3", "tokenizer.json"))
		cfg := readFile(t, datadir.Tokenizer(t, "llama3", "tokenizer_config.json"))
		v, err = tokenizer.LoadHFBytes("llama3.1", []byte(r.Replace(string(tj))), []byte(r.Replace(string(cfg))), tokenizer.LoadOptions{})
	case "mistral-tools":
		v, err = tokenizer.LoadHFBytes("mistral-tools", mistralWithTools(t), nil, tokenizer.LoadOptions{})
	case "qwen3+markers":
		v, err = tokenizer.LoadHFBytes("qwen3+markers", qwenWithMarkers(t), nil, tokenizer.LoadOptions{})
	default:
		t.Fatalf("no vocabulary %q", name)
	}
	require.NoError(t, err)
	vocabs[name] = v
	return v
}

func readFile(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

func mistralWithTools(t *testing.T) []byte {
	tj := string(readFile(t, datadir.Tokenizer(t, "mistral", "tokenizer.json")))
	for _, old := range []string{`"<0x02>": 5`, `"<0x03>": 6`} {
		require.Contains(t, tj, old)
	}
	tj = strings.NewReplacer(`"<0x02>": 5`, `"[TOOL_CALLS]": 5`, `"<0x03>": 6`, `"[ARGS]": 6`).Replace(tj)
	return withAddedTokens(t, []byte(tj), map[string]int{"[TOOL_CALLS]": 5, "[ARGS]": 6}, nil)
}

func qwenWithMarkers(t *testing.T) []byte {
	tj := readFile(t, datadir.Tokenizer(t, "qwen3", "tokenizer.json"))
	v, err := tokenizer.LoadHFBytes("qwen3", tj, nil, tokenizer.LoadOptions{})
	require.NoError(t, err)
	next := v.Size()
	add := map[string]int{}
	for m := range byteLevel {
		f, err := m.family()
		require.NoError(t, err)
		for _, c := range f.controls {
			if _, ok := v.TokenID(c); !ok {
				if _, ok := add[c]; !ok {
					add[c] = next
					next++
				}
			}
		}
	}
	return withAddedTokens(t, tj, add, glmArgMarkers)
}

var glmArgMarkers = []string{"<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"}

// withAddedTokens adds tokens to a tokenizer.json's added_tokens, special
// but for those named in plain, leaving the rest of the text as it is (the
// loader reads the vocabulary in its order).
func withAddedTokens(t *testing.T, tj []byte, tokens map[string]int, plain []string) []byte {
	const key = `"added_tokens": [`
	at := strings.Index(string(tj), key)
	require.GreaterOrEqual(t, at, 0)
	at += len(key)
	var b strings.Builder
	b.Write(tj[:at])
	for text, id := range tokens {
		entry, err := json.Marshal(map[string]any{"id": id, "content": text, "single_word": false,
			"lstrip": false, "rstrip": false, "normalized": false, "special": !contains(plain, text)})
		require.NoError(t, err)
		b.Write(entry)
		b.WriteByte(',')
	}
	b.Write(tj[at:])
	return []byte(b.String())
}

// encode turns text into tokens: each marker of the family that the
// vocabulary has as one token becomes that token (the encoder spells
// special tokens as text), and the text between is encoded by the
// vocabulary's encoder. Where the encoder's tokens do not spell the text
// back (SentencePiece's leading space), the text is spelled greedily by
// the longest ordinary token instead.
func encode(t *testing.T, v *tokenizer.Vocab, markers []string, text string) []int {
	enc, err := v.Encoder()
	require.NoError(t, err)
	var known []string
	for _, m := range markers {
		if _, ok := v.TokenID(m); ok {
			known = append(known, m)
		}
	}
	sort.Slice(known, func(i, j int) bool { return len(known[i]) > len(known[j]) })
	var ids []int
	plain := func(s string) {
		if s == "" {
			return
		}
		got := enc.Encode(s)
		var b strings.Builder
		for _, id := range got {
			b.Write(v.Bytes(id))
		}
		if b.String() == s {
			ids = append(ids, got...)
			return
		}
		ids = append(ids, greedy(t, v, s)...)
	}
	for len(text) > 0 {
		at, which := len(text), ""
		for _, m := range known {
			if i := strings.Index(text, m); i >= 0 && i < at {
				at, which = i, m
			}
		}
		plain(text[:at])
		if which == "" {
			break
		}
		id, _ := v.TokenID(which)
		ids = append(ids, id)
		text = text[at+len(which):]
	}
	return ids
}

var (
	greedyMu    sync.Mutex
	greedyIndex = map[*tokenizer.Vocab]map[string]int{}
)

// greedy spells s by the longest ordinary (not special) tokens.
func greedy(t *testing.T, v *tokenizer.Vocab, s string) []int {
	greedyMu.Lock()
	idx, ok := greedyIndex[v]
	if !ok {
		idx = map[string]int{}
		for id := 0; id < v.Size(); id++ {
			if b := v.Bytes(id); len(b) > 0 && !v.IsSpecial(id) {
				if _, dup := idx[string(b)]; !dup {
					idx[string(b)] = id
				}
			}
		}
		greedyIndex[v] = idx
	}
	greedyMu.Unlock()
	var ids []int
	for len(s) > 0 {
		n := len(s)
		for ; n > 0; n-- {
			if id, ok := idx[s[:n]]; ok {
				ids = append(ids, id)
				break
			}
		}
		if n == 0 {
			t.Fatalf("no token spells %q", s[:1])
		}
		s = s[n:]
	}
	return ids
}

// TestOutputsByGrammar compiles every table's request with structtag and
// feeds the outputs: token by token through package mask where the family
// has a vocabulary here, byte by byte through package pda otherwise.
func TestOutputsByGrammar(t *testing.T) {
	for _, c := range allCases() {
		t.Run(c.name(), func(t *testing.T) {
			g, err := Grammar(c.choice.request(c.model, c.reasoning), structtag.Options{})
			require.NoError(t, err)
			if name, ok := vocabFor[c.model]; ok {
				runTokens(t, c, g, testVocab(t, name))
			}
			if !byteLevel[c.model] {
				return
			}
			p, err := pda.Compile(g, grammar.DefaultLimits())
			require.NoError(t, err)
			run := func(s string) bool {
				st := pda.NewState(p)
				return st.AdvanceBytes([]byte(s)) && st.CanEnd()
			}
			for _, s := range c.accept {
				if !run(s) {
					t.Errorf("refused %q", s)
				}
			}
			for _, s := range c.reject {
				if run(s) {
					t.Errorf("accepted %q", s)
				}
			}
		})
	}
}

func runTokens(t *testing.T, c outputCase, g *grammar.Grammar, v *tokenizer.Vocab) {
	comp, err := mask.Compile(g, v, mask.Options{})
	require.NoError(t, err)
	f, err := c.model.family()
	require.NoError(t, err)
	markers := append([]string{"<|python_tag|>", "[ARGS]"}, f.controls...)
	// run feeds the tokens and says how far they went, and whether the
	// matcher may end there.
	run := func(s string) (int, bool) {
		m := comp.NewMatcher()
		ids := encode(t, v, markers, s)
		for i, id := range ids {
			if !m.AcceptToken(id) {
				return i, false
			}
		}
		return len(ids), m.CanEnd()
	}
	for _, s := range c.accept {
		if n, ok := run(s); !ok {
			t.Errorf("refused %q at token %d of %v", s, n, encode(t, v, markers, s))
		}
	}
	for _, s := range c.reject {
		if _, ok := run(s); ok {
			t.Errorf("accepted %q", s)
		}
	}
}

// TestQwenTriggerSpellings pins how Qwen3's <tool_call>, an added token
// that is not special, opens a call: as the one token and as the same text
// spelled by ordinary tokens; either way the name after it is checked.
func TestQwenTriggerSpellings(t *testing.T) {
	v := testVocab(t, "qwen3")
	enc, err := v.Encoder()
	require.NoError(t, err)
	tcID, ok := v.TokenID("<tool_call>")
	require.True(t, ok)
	g, err := Grammar(Request{Model: Qwen3, Tools: testTools}, structtag.Options{})
	require.NoError(t, err)
	comp, err := mask.Compile(g, v, mask.Options{})
	require.NoError(t, err)
	rest := func(name string) string {
		return "\n{\"name\": \"" + name + "\", \"arguments\": {}}\n</tool_call>"
	}
	for _, tc := range []struct {
		name    string
		ids     []int
		spelled bool // <tool_call> spelled by ordinary tokens
		want    bool
	}{
		{"token", append([]int{tcID}, encode(t, v, qwen3Controls, rest("get_time"))...), false, true},
		{"text", append(enc.Encode("<"), encode(t, v, qwen3Controls, "tool_call>"+rest("get_time"))...), true, true},
		{"token, unknown name", append([]int{tcID}, encode(t, v, qwen3Controls, rest("get_news"))...), false, false},
		{"text, unknown name", append(enc.Encode("<"), encode(t, v, qwen3Controls, "tool_call>"+rest("get_news"))...), true, false},
	} {
		m := comp.NewMatcher()
		ok := true
		for _, id := range tc.ids {
			ok = ok && m.AcceptToken(id)
		}
		if tc.spelled {
			require.NotContains(t, tc.ids, tcID, tc.name)
		}
		require.Equal(t, tc.want, ok && m.CanEnd(), tc.name)
	}
}

// TestEndOfTurn pins that the end-of-turn token is not part of the
// constraint: Qwen3's <|im_end|> is allowed where a required call is
// complete, and nowhere before (not in the thinking, not inside the call).
func TestEndOfTurn(t *testing.T) {
	v := testVocab(t, "qwen3")
	imEnd, ok := v.TokenID("<|im_end|>")
	require.True(t, ok)
	g, err := Grammar(Request{Model: Qwen3, Tools: testTools, Reasoning: true,
		ToolChoice: ToolChoice{Mode: ChoiceRequired}}, structtag.Options{})
	require.NoError(t, err)
	comp, err := mask.Compile(g, v, mask.Options{})
	require.NoError(t, err)
	out := "Weather.\n</think>\n\n" + hermesCall("get_weather", `{"city": "Paris"}`)
	ids := encode(t, v, qwen3Controls, out)
	m := comp.NewMatcher()
	bm := mask.NewBitmask(1, v.LogitWidth())
	for i, id := range ids {
		require.NoError(t, m.FillBitmask(bm, 0))
		require.False(t, bm.Allowed(0, imEnd), "<|im_end|> allowed before token %d of %d", i, len(ids))
		require.True(t, bm.Allowed(0, id), "token %d (%q) refused", i, v.Bytes(id))
		require.True(t, m.AcceptToken(id))
	}
	require.NoError(t, m.FillBitmask(bm, 0))
	require.True(t, bm.Allowed(0, imEnd))
	require.True(t, m.AcceptToken(imEnd))
}
