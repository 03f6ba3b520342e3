// Compiles the backend (apps + libs) with tsc and rewrites the @gw/* path aliases to relative imports.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';

const started = Date.now();
rmSync('dist', { recursive: true, force: true });
const bin = (name) => `node_modules/.bin/${name}`;
execFileSync(bin('tsc'), ['-p', 'tsconfig.build.json'], { stdio: 'inherit' });
execFileSync(bin('tsc-alias'), ['-p', 'tsconfig.build.json'], { stdio: 'inherit' });
console.log(`server built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
