// `node scripts/scan-test-logs.mjs <dir>`: looks for secrets in the log files a test run wrote with
// TEST_LOG_DIR=<dir> (every test gateway then logs at trace level into its own file). A secret is a key
// with more than four characters visible, a bearer value, credentials in a URL, or one of the fixed
// passwords and session secrets the suites use. Prints each hit and exits 1 if there is any.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node scripts/scan-test-logs.mjs <TEST_LOG_DIR>');
  process.exit(2);
}

const PATTERNS = [
  ['API key', /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{8,}/],
  ['Gemini key', /\bAIza[A-Za-z0-9_-]{8,}/],
  ['bearer value', /\bBearer\s+(?!\[redacted\])[A-Za-z0-9._~+/=-]{6,}/i],
  ['URL credentials', /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@"]*:(?!\[redacted\])[^\s@/"]+@/i],
  ['test password', /root-pass-123|password-123|e2e-session-secret|child-session-secret|fuzzer-pass-1|outbound-pass-1/],
];

let files = 0;
let lines = 0;
const hits = [];
for (const name of readdirSync(dir)) {
  if (!name.endsWith('.log')) continue;
  files++;
  const text = readFileSync(join(dir, name), 'utf8');
  for (const [index, line] of text.split('\n').entries()) {
    if (!line) continue;
    lines++;
    for (const [what, pattern] of PATTERNS) {
      const match = pattern.exec(line);
      if (match) hits.push(`${name}:${index + 1} ${what}: ${match[0].slice(0, 12)}… in ${line.slice(0, 200)}`);
    }
  }
}
console.log(`scanned ${lines} log lines in ${files} files: ${hits.length} secret(s) found`);
for (const hit of hits.slice(0, 50)) console.log(hit);
process.exit(hits.length ? 1 : 0);
