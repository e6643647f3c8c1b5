// Golden files for the Hugging Face vocabularies (llama3, qwen3, mistral),
// made by the reference implementation @lenml/tokenizers (a dependency-free
// port of transformers.js' tokenizers), not by rein.
//
// For each vocabulary it writes
//   vocab-NAME.json:  the size, the special ids, and SHA-256 digests of every
//                     token's exact bytes, CHUNK ids per digest (see digests);
//   encode-NAME.json: the ids of every string of inputs.json, encoded with
//                     add_special_tokens: false.
// Token bytes come from the reference's own tables, never from decoding a
// single token to a JavaScript string (which cannot hold partial UTF-8): the
// ByteLevel decoder's byte_decoder map for byte-level vocabularies; for
// SentencePiece ones, the ByteFallback rule (<0xXX> is one byte) and the
// Replace decoder (▁ is a space). Added tokens stand for their content.
//
// usage: NODE_PATH=... node hf.cjs TOKENIZERS_DIR GOLDEN_DIR
"use strict";
const fs = require("fs");
const path = require("path");
const { TokenizerLoader } = require("@lenml/tokenizers");
const { digests, CHUNK } = require("./digests.cjs");

const REFERENCE = "@lenml/tokenizers@" + packageVersion("@lenml/tokenizers");
const [vocabDir, outDir] = process.argv.slice(2);
const inputs = JSON.parse(fs.readFileSync(path.join(outDir, "inputs.json"), "utf8"));

function decoders(d) {
  if (!d) return [];
  return d.decoders ? d.decoders.flatMap(decoders) : [d];
}

function tokenBytes(tok) {
  const added = new Map(tok.added_tokens.map((t) => [t.id, t]));
  const ds = decoders(tok.decoder);
  const byteLevel = ds.find((d) => d.byte_decoder);
  const byteFallback = ds.some((d) => d.constructor.name === "ByteFallback");
  const replace = ds.find((d) => d.constructor.name === "ReplaceDecoder");
  const vocab = tok.model.vocab;
  const out = [];
  for (let id = 0; id < vocab.length; id++) {
    const piece = vocab[id];
    if (piece === undefined) {
      out.push(null);
    } else if (added.has(id)) {
      out.push(Buffer.from(added.get(id).content, "utf8"));
    } else if (byteLevel) {
      out.push(
        Buffer.from(
          [...piece].map((c) => {
            const b = byteLevel.byte_decoder[c];
            if (b === undefined) throw new Error(`token ${id} ${piece}: ${c} is not in the byte-level alphabet`);
            return b;
          }),
        ),
      );
    } else if (byteFallback && piece.length === 6 && piece.startsWith("<0x") && piece.endsWith(">")) {
      out.push(Buffer.from([parseInt(piece.slice(3, 5), 16)]));
    } else if (replace) {
      out.push(Buffer.from(replace.decode_chain([piece]).join(""), "utf8"));
    } else {
      throw new Error("no byte mapping for this decoder");
    }
  }
  return out;
}

for (const name of ["llama3", "qwen3", "mistral"]) {
  const dir = path.join(vocabDir, name);
  const tok = TokenizerLoader.fromPreTrained({
    tokenizerJSON: JSON.parse(fs.readFileSync(path.join(dir, "tokenizer.json"), "utf8")),
    tokenizerConfig: JSON.parse(fs.readFileSync(path.join(dir, "tokenizer_config.json"), "utf8")),
  });
  const bytes = tokenBytes(tok);
  const special = tok.added_tokens.filter((t) => t.special).map((t) => t.id).sort((a, b) => a - b);
  fs.writeFileSync(
    path.join(outDir, `vocab-${name}.json`),
    JSON.stringify({ reference: REFERENCE, vocab: name, size: bytes.length, chunk: CHUNK, special, digests: digests(bytes) }, null, 1) + "\n",
  );
  const ids = inputs.map((s) => tok.encode(s, { add_special_tokens: false }));
  fs.writeFileSync(path.join(outDir, `encode-${name}.json`), encodeFile(REFERENCE, name, ids));
  console.log(`${name}: ${bytes.length} tokens, ${special.length} special, ${ids.flat().length} ids for ${inputs.length} inputs`);
}

function packageVersion(name) {
  const main = require.resolve(name); // .../node_modules/NAME/dist/main.js
  const pkg = main.slice(0, main.lastIndexOf("node_modules") + "node_modules".length + 1 + name.length);
  return JSON.parse(fs.readFileSync(path.join(pkg, "package.json"), "utf8")).version;
}

function encodeFile(reference, name, ids) {
  return `{"reference":${JSON.stringify(reference)},"vocab":${JSON.stringify(name)},"ids":[\n` + ids.map((x) => JSON.stringify(x)).join(",\n") + "\n]}\n";
}
