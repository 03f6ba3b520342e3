// Runs the shell and the three remotes in dev mode, each on its own port with hot reload.
// The shell (3100) proxies /api, /pg and /v1 to the gateway on 3000 and loads remotes from 3101-3103.
import { spawn } from 'node:child_process';

const APPS = ['shell', 'admin', 'user', 'playground'];
const children = APPS.map((app) =>
  spawn('npm', ['run', 'dev', '-w', `@console/${app}`], { stdio: ['ignore', 'inherit', 'inherit'], env: process.env }),
);

const stopAll = () => {
  for (const child of children) child.kill('SIGTERM');
};
process.on('SIGINT', stopAll);
process.on('SIGTERM', stopAll);
for (const child of children) child.on('exit', (code) => code && stopAll());
