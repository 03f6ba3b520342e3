// `npm start`: runs the built gateway (building it first on a fresh checkout).
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const entry = new URL('../dist/apps/gateway/src/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.log('No build found: running `npm run build` first.');
  execSync('npm run build', { stdio: 'inherit' });
}
await import(entry.href);
