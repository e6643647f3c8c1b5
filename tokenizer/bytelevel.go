package tokenizer

import "unicode/utf8"

// GPT-2's byte-level alphabet: every byte is written as one printable rune so
// that BPE can work on text. Bytes that are printable Latin-1 ('!'..'~',
// '¡'..'¬', '®'..'ÿ') stand for themselves; the other 68 bytes, in increasing
// order, take the runes U+0100, U+0101, … (so a space is 'Ġ', U+0120, and a
// newline 'Ċ', U+010A).
var (
	byteToRune [256]rune
	runeToByte = map[rune]byte{}
)

func init() {
	n := rune(0)
	for b := range 256 {
		printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
		if printable {
			byteToRune[b] = rune(b)
		} else {
			byteToRune[b] = 256 + n
			n++
		}
		runeToByte[byteToRune[b]] = byte(b)
	}
}

// byteLevelDecode turns a byte-level token string into the bytes it stands
// for. A rune outside the alphabet stands for its own UTF-8 encoding, as in
// the Hugging Face ByteLevel decoder.
func byteLevelDecode(s string) []byte {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if b, ok := runeToByte[r]; ok {
			out = append(out, b)
		} else {
			out = utf8.AppendRune(out, r)
		}
	}
	return out
}
