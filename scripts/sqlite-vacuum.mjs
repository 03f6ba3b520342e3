// `npm run db:sqlite-vacuum -- [path]`: the one-time conversion of a SQLite file made by new-api or an older
// build (auto_vacuum = NONE) so that log cleanups give space back to the file system, as they do on files the
// gateway creates. Sets auto_vacuum = INCREMENTAL and rebuilds the file with VACUUM, which only then applies
// the setting. VACUUM rewrites the whole file and locks it for as long (about a minute per GB) and needs as much
// free disk again: run it with the gateway stopped. Never run by the gateway itself.
//   path: the file (default: SQLITE_PATH, else ./data/one-api.db). --check only prints the state.
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const checkOnly = args.includes('--check');
const file = args.find((a) => !a.startsWith('--')) ?? process.env.SQLITE_PATH ?? './data/one-api.db';
const MODES = ['NONE', 'FULL', 'INCREMENTAL'];

if (!existsSync(file)) {
  console.error(`no SQLite file at ${file}`);
  process.exit(1);
}

const Database = require('better-sqlite3');
// No busy timeout: a gateway still writing to the file makes this stop at once instead of waiting for it.
const db = new Database(file, { fileMustExist: true, timeout: 0 });
const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const state = () => {
  const pageSize = db.pragma('page_size', { simple: true });
  return {
    mode: MODES[db.pragma('auto_vacuum', { simple: true })] ?? 'unknown',
    size: mb(db.pragma('page_count', { simple: true }) * pageSize),
    free: mb(db.pragma('freelist_count', { simple: true }) * pageSize),
  };
};
const show = (label, s) => console.log(`${label}: auto_vacuum = ${s.mode}, ${s.size} of pages, ${s.free} of them free`);

try {
  const before = state();
  show(file, before);
  if (checkOnly) process.exit(0);
  if (before.mode === 'INCREMENTAL') {
    console.log('already INCREMENTAL: log cleanups give space back; nothing to do');
    process.exit(0);
  }
  // Fails with "database is locked" while another connection writes: the gateway must be stopped.
  db.exec('BEGIN IMMEDIATE; COMMIT;');
  const started = performance.now();
  db.pragma('auto_vacuum = INCREMENTAL');
  db.exec('VACUUM');
  db.pragma('wal_checkpoint(TRUNCATE)');
  show(`after VACUUM (${((performance.now() - started) / 1000).toFixed(1)} s)`, state());
  console.log(`file on disk: ${mb(statSync(file).size)}`);
} catch (error) {
  console.error(`not converted: ${error.message} (is the gateway still running on this file? stop it first)`);
  process.exitCode = 1;
} finally {
  db.close();
}
