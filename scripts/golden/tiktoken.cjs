// Golden encodings for the tiktoken vocabularies (gpt2 = r50k_base, cl100k,
// o200k), made by the reference implementation js-tiktoken, not by rein, and a
// cross-check of two references against each other:
//   - every token's bytes (specials included) and the size in the
//     vocab-NAME.json files tiktoken.go wrote from github.com/tiktoken-go/
//     tokenizer must equal js-tiktoken's own ranks table, exactly;
//   - js-tiktoken's encodings, written to encode-NAME.json, are compared with
//     tiktoken-go's. They differ only where tiktoken-go's generated regex
//     matcher gives up too early when backtracking \s*[\r\n]+ (on " \n \n ",
//     " \n" + " \n" + " " instead of " \n \n" + " ", the match the pattern
//     defines and every backtracking engine finds). Those inputs are listed in
//     KNOWN; any other difference fails the script.
//
// usage: NODE_PATH=... node tiktoken.cjs GOLDEN_DIR SCRATCH_DIR
"use strict";
const fs = require("fs");
const path = require("path");
const { getEncoding } = require("js-tiktoken");
const { digests } = require("./digests.cjs");

const KNOWN = new Set([" \n \n ", "  \n  \n  "]);

const [outDir, scratch] = process.argv.slice(2);
const inputs = JSON.parse(fs.readFileSync(path.join(outDir, "inputs.json"), "utf8"));
const version = JSON.parse(
  fs.readFileSync(path.join(path.dirname(require.resolve("js-tiktoken")), "..", "package.json"), "utf8"),
).version;
const REFERENCE = "js-tiktoken@" + version;
let failed = false;

for (const [name, encName] of [["gpt2", "gpt2"], ["cl100k", "cl100k_base"], ["o200k", "o200k_base"]]) {
  const enc = getEncoding(encName);
  const golden = JSON.parse(fs.readFileSync(path.join(outDir, `vocab-${name}.json`), "utf8"));
  const bytes = [];
  for (const [rank, b] of enc.textMap) bytes[rank] = b;
  for (const [text, id] of Object.entries(enc.specialTokens)) bytes[id] = Buffer.from(text, "utf8");
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === undefined) bytes[i] = null;
  if (bytes.length !== golden.size) {
    console.error(`${name}: js-tiktoken has ${bytes.length} ids, ${golden.reference} ${golden.size}`);
    failed = true;
  }
  digests(bytes).forEach((d, i) => {
    if (d !== golden.digests[i]) {
      console.error(`${name}: ids ${i * golden.chunk}..${(i + 1) * golden.chunk - 1} differ between js-tiktoken and ${golden.reference}`);
      failed = true;
    }
  });

  const ids = inputs.map((s) => enc.encode(s, [], []));
  const other = JSON.parse(fs.readFileSync(path.join(scratch, `tiktoken-go-${name}.json`), "utf8"));
  let known = 0;
  inputs.forEach((s, i) => {
    if (JSON.stringify(ids[i]) === JSON.stringify(other.ids[i])) return;
    if (KNOWN.has(s)) {
      known++;
      return;
    }
    console.error(`${name}: input ${i} ${JSON.stringify(s).slice(0, 60)}: ${REFERENCE} ${JSON.stringify(ids[i]).slice(0, 80)}, ${other.reference} ${JSON.stringify(other.ids[i]).slice(0, 80)}`);
    failed = true;
  });
  fs.writeFileSync(
    path.join(outDir, `encode-${name}.json`),
    `{"reference":${JSON.stringify(REFERENCE)},"vocab":${JSON.stringify(name)},"ids":[\n` + ids.map((x) => JSON.stringify(x)).join(",\n") + "\n]}\n",
  );
  console.log(`${name}: ${bytes.length} tokens agree; ${inputs.length} encodings, ${known} known differences from ${other.reference}`);
}
process.exit(failed ? 1 : 0);
