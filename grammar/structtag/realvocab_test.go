package structtag_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar/structtag"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
)

// TestQwen3ToolCalls runs a Qwen3-style request (a thinking block, then free
// text with Hermes tool calls) against Qwen3's vocabulary, where <think>,
// </think>, <tool_call> and </tool_call> are added tokens: the outputs are
// encoded as the model's tokenizer writes them.
func TestQwen3ToolCalls(t *testing.T) {
	vocab := vocabtest.Load(t, "qwen3")
	enc, err := vocab.Encoder()
	require.NoError(t, err)
	request := `{"type":"structural_tag","format":{"type":"sequence","elements":[
		{"type":"tag","begin":"<think>","content":{"type":"any_text"},"end":"</think>"},
		{"type":"triggered_tags","triggers":["<tool_call>"],"tags":[{
			"begin":"<tool_call>\n{\"name\": \"get_weather\", \"arguments\": ",
			"content":{"type":"json_schema","json_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},
			"end":"}\n</tool_call>"}]}]}}`
	g, err := structtag.Compile([]byte(request), structtag.Options{TokenID: vocab.TokenID})
	require.NoError(t, err)
	c, err := mask.Compile(g, vocab, mask.Options{})
	require.NoError(t, err)

	call := "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"
	for _, s := range []string{
		"<think>\nplan\n</think>\n\n" + call,
		"<think></think>Sure. " + call + " and " + call + " done",
		"<think>x</think>no call, partial <tool_",
	} {
		assert.True(t, runTokens(c, enc.Encode(s)), "accept %q", s)
	}
	for _, s := range []string{
		"<think>abc",
		"<think>x</think><tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>",
		"<think>x</think>" + call[:len(call)-5],
		"no think",
	} {
		assert.False(t, runTokens(c, enc.Encode(s)), "reject %q", s)
	}

	// After the thinking block the <tool_call> token is allowed, and after
	// it only the call's text.
	m := c.NewMatcher()
	for _, id := range enc.Encode("<think>x</think>Sure.") {
		require.True(t, m.AcceptToken(id))
	}
	open, ok := vocab.TokenID("<tool_call>")
	require.True(t, ok)
	bm := mask.NewBitmask(1, vocab.Size())
	require.NoError(t, m.FillBitmask(bm, 0))
	assert.True(t, bm.Allowed(0, open))
	require.True(t, m.AcceptToken(open))
	require.NoError(t, m.FillBitmask(bm, 0))
	assert.False(t, bm.Allowed(0, open))
	nl, _ := vocab.TokenID("\n")
	assert.True(t, bm.Allowed(0, nl))
}

// TestLlama3SpecialTokens runs a request whose tag begins and ends with
// text holding Llama 3's special tokens: the header markers inside a longer
// begin string, and the stop token <|eot_id|> as the end. The literals
// match those tokens.
func TestLlama3SpecialTokens(t *testing.T) {
	vocab := vocabtest.Load(t, "llama3")
	enc, err := vocab.Encoder()
	require.NoError(t, err)
	request := `{"type":"tag","begin":"<|start_header_id|>assistant<|end_header_id|>\n\n","content":{"type":"json_schema","json_schema":{"type":"object","properties":{"name":{"const":"f"}},"required":["name"]}},"end":"<|eot_id|>"}`
	g, err := structtag.Compile([]byte(request), structtag.Options{})
	require.NoError(t, err)
	c, err := mask.Compile(g, vocab, mask.Options{})
	require.NoError(t, err)
	id := func(s string) int {
		id, ok := vocab.TokenID(s)
		require.True(t, ok, s)
		require.True(t, vocab.IsSpecial(id), s)
		return id
	}
	header := append(append([]int{id("<|start_header_id|>")}, enc.Encode("assistant")...), id("<|end_header_id|>"))
	header = append(header, enc.Encode("\n\n")...)
	seq := func(body string, end ...int) []int {
		return append(append(append([]int(nil), header...), enc.Encode(body)...), end...)
	}
	eot := id("<|eot_id|>")
	assert.True(t, runTokens(c, seq(`{"name": "f"}`, eot)))
	assert.False(t, runTokens(c, seq(`{"name": "f"}`)))
	assert.False(t, runTokens(c, seq(`{"name": "g"}`, eot)))
}

// TestRuleFieldsKept checks that a schema's rules keep what the matcher
// enforces beside their bodies when a structural tag embeds them: a tool's
// arguments with uniqueItems refuse a repeated item, and an any_text budget
// (max_tokens) still ends the text, with and without special tokens in the
// tags (which the token resolution rewrites).
func TestRuleFieldsKept(t *testing.T) {
	vocab := vocabtest.Load(t, "qwen3")
	enc, err := vocab.Encoder()
	require.NoError(t, err)
	for _, begin := range []string{"<f>", "<tool_call>"} {
		request := `{"type":"structural_tag","format":{"type":"triggered_tags","triggers":["` + begin[:2] + `"],"tags":[{
			"begin":"` + begin + `","content":{"type":"json_schema","json_schema":{"type":"array","items":{"type":"integer"},"uniqueItems":true}},"end":"</f>"}]}}`
		g, err := structtag.Compile([]byte(request), structtag.Options{TokenID: vocab.TokenID})
		require.NoError(t, err)
		c, err := mask.Compile(g, vocab, mask.Options{})
		require.NoError(t, err)
		assert.True(t, runTokens(c, enc.Encode("x "+begin+"[1,2]</f>")), begin)
		assert.False(t, runTokens(c, enc.Encode("x "+begin+"[1,1]</f>")), "%s: a repeated item", begin)
	}
}
