// `npm start`: runs the built gateway (building it first on a fresh checkout) in a child process started
// with the runtime flags and malloc settings of gateway-runtime.mjs. A SIGTERM (process managers, docker
// stop) is passed on, so the gateway still shuts down gracefully; a terminal's Ctrl-C already reaches the
// child (same process group), so the parent only waits for it. The child's exit code is ours.
import { execSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { GATEWAY_NODE_FLAGS, gatewayEnv } from './gateway-runtime.mjs';

const entry = fileURLToPath(new URL('../dist/apps/gateway/src/main.js', import.meta.url));
if (!existsSync(entry)) {
  console.log('No build found: running `npm run build` first.');
  execSync('npm run build', { stdio: 'inherit' });
}
const child = spawn(process.execPath, [...GATEWAY_NODE_FLAGS, ...process.execArgv, entry, ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: gatewayEnv(process.env),
});
process.on('SIGTERM', () => child.kill('SIGTERM'));
process.on('SIGINT', () => undefined);
child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
