// Writes the encoder golden inputs: hand-written cases that cover what
// tokenizers get wrong (runs of spaces and newlines, digits, contractions,
// JSON, CJK, emoji, combining marks in decomposed form so that NFC matters)
// and pseudo-random strings from a fixed seed.
//
// The random alphabet leaves out U+0085, U+FEFF and U+017F, where JavaScript's
// regex engine and the Rust ones behind the reference tokenizers disagree
// (\s, and case folding of 's'); rein's own tests cover those.
//
// usage: node inputs.cjs OUT.json
"use strict";
const fs = require("fs");

const json = {
  id: "call_8f3a",
  type: "function",
  function: {
    name: "get_weather",
    arguments: { city: "São Paulo", unit: "celsius", days: [1, 2, 3], precise: true, note: null },
  },
  score: -12.5e10,
  tags: ["a\"b", "tab\there", "line\nbreak", "back\\slash", "uni\u00e9", "😀", "日本語"],
  nested: { empty: {}, list: [], deep: [[[{ x: 0.001 }]]] },
};

const prose =
  "The quick brown fox jumps over the lazy dog. It's 3:45pm on 2024-06-01, and we've got " +
  "12,345 items (about 98.6%) left. Dr. O'Neil said: \"Don't panic!\" -- then he left.\n\n" +
  "Second paragraph\twith a tab, trailing spaces   \nand a Windows line end\r\nthat ends here.";

const hand = [
  "",
  " ",
  "a",
  "Hello",
  "Hello world",
  " Hello world",
  "Hello  world",
  "Hello   world",
  "Hello world!",
  "hello, world.",
  "HELLO WORLD",
  prose,
  "I'm, you're, he's, she'd, we'll, they've, I'M, YOU'RE, HE'S, WE'LL, THEY'VE, it'S, o'clock",
  "'s 't 're 've 'm 'll 'd",
  "x's'",
  "don't   stop",
  // whitespace
  "  ", "   ", "    leading", "trailing    ", "a \n b", "a\n\nb", "a\n\n\nb", "\n", "\n\n", "\n\n\n\n",
  "\r\n", "a\r\nb\r\n\r\nc", "\t", "\t\tindented", "a\t\tb", " \n \n ", "  \n  \n  ", "x" + " ".repeat(17) + "y",
  " ".repeat(100), "\n".repeat(40), "a\u00a0b", "a\u3000b", "a\u2003b", "end.  \n",
  // digits
  "1", "12", "123", "1234", "12345", "1234567890", "3.14159", "1,000,000", "-42", "+7e-3", "0x1F",
  "2024-06-01T12:34:56Z", "v1.2.3", "A1B2C3", "٣٤٥", "१२३", "①②③", "½ ¾", "1st 2nd 3rd", "9".repeat(31),
  // JSON
  JSON.stringify(json),
  JSON.stringify(json, null, 2),
  JSON.stringify(json, null, 4),
  JSON.stringify(json, null, "\t"),
  '{"a":1,"b":[true,false,null],"c":{"d":"e"}}',
  '{\n  "name": "rein",\n  "version": "0.1.0"\n}\n',
  '[{"id":1},{"id":2},{"id":3}]',
  '{"escaped":"\\u00e9\\n\\t\\"","slash":"\\/"}',
  '    }\n  ]\n}',
  '":{"',
  '","',
  // code
  "func main() {\n\tfmt.Println(\"hi\")\n}\n",
  "def f(x):\n    return x ** 2  # square\n",
  "if (a && b || !c) { x += 1; } // done",
  "https://example.com/path?q=1&r=two#frag",
  "user.name+tag@example.co.uk",
  "## Heading\n\n- item one\n- item two\n\n```go\nx := 1\n```\n",
  "<div class=\"x\">Hi &amp; bye</div>",
  // CJK and other scripts
  "日本語のテキストです。", "中文分词测试，包括标点符号！", "한국어 텍스트입니다.", "ひらがなカタカナ漢字",
  "Привет, мир!", "Γειά σου Κόσμε", "مرحبا بالعالم", "שלום עולם", "नमस्ते दुनिया", "สวัสดีชาวโลก",
  "Tiếng Việt có dấu", "Ελληνικά και English mixed 中文", "的".repeat(64),
  // emoji
  "😀", "👍🏽", "👨‍👩‍👧‍👦", "🇫🇷🇯🇵", "❤️", "🏳️‍🌈", "1️⃣", "I ❤️ emoji 😀😃😄!", "🙂".repeat(20), "a😀b",
  // combining marks and normalization (decomposed forms: NFC composes them)
  "e\u0301", "cafe\u0301", "Cafe\u0301 au lait", "A\u030a", "n\u0303o", "a\u0323\u0307", "a\u0307\u0323",
  "\u1100\u1161\u11a8", "\u1112\u1161\u11ab\u1100\u1173\u11af", "\u212b", "\u2126", "\u00c5", "Z\u0351\u0356\u0317",
  "o\u0308\u0304", "\u0041\u0308\u0301", "ﬁ ligature", "x\u0300\u0301\u0302\u0303\u0304",
  // long words (the heap path of BPE)
  "a".repeat(1000), "ab".repeat(300), "abc".repeat(200) + " " + "xyz".repeat(100),
  "Supercalifragilisticexpialidocious", "pneumonoultramicroscopicsilicovolcanoconiosis",
  "aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQgZW5jb2RlZCB0ZXh0IHRoYXQgaXMgcXVpdGUgbG9uZw==".repeat(8),
  "-".repeat(80), "=".repeat(33), "...", "!!!???", "«quoted»", "“smart quotes” and ‘single’",
  // Qwen's non-special added tokens (whole tokens there, plain text elsewhere)
  "<think>\nLet me think.\n</think>\n\nThe answer is 42.",
  "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>",
  prose.repeat(6) + "\n" + JSON.stringify(json, null, 2),
];

// mulberry32: a small fixed-seed PRNG.
function prng(seed) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pools = [
  "abcdefghijklmnopqrstuvwxyz",
  "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
  "0123456789",
  " ", "  ", "\n", "\t", "\r\n",
  "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
  "'s", "'T", "'ll", "'VE", "'d",
  "àéîõüçñßøåæœ",
  "\u0300\u0301\u0302\u0303\u0308\u0323\u0327",
  "日本語中文字漢字的一是不了人我在有他这为之大来以个中上们",
  "あいうえおかきくけこアイウエオカキクケコ",
  "가나다라마바사아자차카타파하",
  "\u1100\u1161\u11a8\u1102\u1165",
  "абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
  "αβγδεζηθικλμνξοπρστυφχψω",
  "ابتثجحخدذرزسشصضطظعغفقكلمنهوي",
  "अआइईउऊएऐओऔकखगघ\u093e\u093f\u0940",
  "กขคงจฉชซ\u0e31\u0e34\u0e35",
  "😀😃😄😁😆🙂🙃😉👍🏽❤️🇫🇷\u200d",
  "\u00a0\u2003\u3000",
  "{}[]\":,",
  "٣٤٥١٢",
];

function randomString(rand) {
  const n = 1 + Math.floor(rand() * 60);
  let s = "";
  while ([...s].length < n) {
    const pool = [...pools[Math.floor(rand() * pools.length)]];
    if (pool.length <= 2 && rand() < 0.5) {
      s += pool.join("");
    } else {
      s += pool[Math.floor(rand() * pool.length)];
    }
  }
  return s;
}

const rand = prng(20240601);
const random = Array.from({ length: 300 }, () => randomString(rand));

fs.writeFileSync(process.argv[2], JSON.stringify(hand.concat(random), null, 0) + "\n");
