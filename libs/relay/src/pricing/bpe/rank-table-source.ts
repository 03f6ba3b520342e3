/**
 * The script a short-lived `node -e` child runs to turn gpt-tokenizer's rank list into the bytes of the tables.
 *
 * Why a child process: the rank list is a 2.4 MB JS array literal of ~200k strings, and loading it costs about
 * 60 MB of resident memory, most of it parser memory that glibc keeps in its arenas once freed. Built in a worker
 * thread, 48-57 MB of that stayed resident after the worker exited (measured, with and without the gateway's
 * malloc settings); an exiting process gives it all back, and the gateway keeps only the ~4 MB of tables.
 *
 * Which entries are reachable follows gpt-tokenizer's BytePairEncodingCore: entries stored as strings are found
 * by their text; entries stored as byte arrays only when the bytes are not valid UTF-8 (valid ones are looked up
 * as strings and never found). An unreachable rank gets no bytes, so the index skips it.
 *
 * Arguments: encoding name, then the resolved paths of gpt-tokenizer's modelParams, rank list and utfUtil
 * (resolved by the parent, since `-e` code resolves bare specifiers from the working directory).
 * Output on stdout: one JSON line { splitSource, splitFlags, tokenBytesLength, offsetsLength }, then the token
 * bytes, then the offsets as native-endian uint32. Any failure is an uncaught error: exit code 1, stack on stderr.
 */
export const RANK_TABLE_SOURCE = `
const [encoding, modelParamsPath, ranksPath, utfUtilPath] = process.argv.slice(1);
const { getEncodingParams } = require(modelParamsPath);
const { tryConvertToString } = require(utfUtilPath);
const { bytePairRankDecoder, tokenSplitRegex } = getEncodingParams(encoding, () => require(ranksPath).default);
const encoder = new TextEncoder();
const tokens = [];
let totalLength = 0;
for (let rank = 0; rank < bytePairRankDecoder.length; rank++) {
  const entry = bytePairRankDecoder[rank];
  let bytes;
  if (typeof entry === 'string') {
    if (!entry.isWellFormed()) throw new Error('rank ' + rank + ' is not well-formed text; the counter cannot match it');
    bytes = encoder.encode(entry);
  } else if (entry !== undefined) {
    bytes = Uint8Array.from(entry);
    if (tryConvertToString(bytes) !== undefined) bytes = undefined;
  }
  tokens.push(bytes);
  totalLength += bytes ? bytes.length : 0;
}
const tokenBytes = new Uint8Array(totalLength);
const offsets = new Uint32Array(tokens.length + 1);
let offset = 0;
tokens.forEach((bytes, rank) => {
  if (bytes) tokenBytes.set(bytes, offset);
  offset += bytes ? bytes.length : 0;
  offsets[rank + 1] = offset;
});
const header = { splitSource: tokenSplitRegex.source, splitFlags: tokenSplitRegex.flags, tokenBytesLength: tokenBytes.length, offsetsLength: offsets.length };
process.stdout.write(JSON.stringify(header) + '\\n');
process.stdout.write(tokenBytes);
process.stdout.write(new Uint8Array(offsets.buffer));
`;
