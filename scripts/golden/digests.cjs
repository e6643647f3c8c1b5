// The digest format of the vocab-*.json golden files, shared by the scripts
// and read by tokenizer/golden_test.go: ids are cut into chunks of CHUNK; each
// chunk's digest is the SHA-256 (hex) of one line per id, "ID HEX\n", where
// HEX is the token's bytes in lower-case hex, or "-" for an id no token uses.
"use strict";
const crypto = require("crypto");

const CHUNK = 256;

function digests(bytes) {
  const out = [];
  for (let start = 0; start < bytes.length; start += CHUNK) {
    const h = crypto.createHash("sha256");
    for (let id = start; id < Math.min(start + CHUNK, bytes.length); id++) {
      const b = bytes[id];
      h.update(`${id} ${b === null ? "-" : Buffer.from(b).toString("hex")}\n`);
    }
    out.push(h.digest("hex"));
  }
  return out;
}

module.exports = { CHUNK, digests };
