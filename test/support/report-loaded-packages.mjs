// Preloaded into a gateway child (`--import`): on SIGUSR2 it prints the npm packages whose CommonJS files the
// process has loaded so far, as one line `loaded-packages: ["name", ...]`. ES modules are not listed (Node keeps
// no public registry of them), so a test checks the CommonJS packages, or an ES package's CommonJS dependencies.
import { createRequire } from 'node:module';

const cache = createRequire(import.meta.url).cache;

function loadedPackages() {
  const names = new Set();
  for (const file of Object.keys(cache)) {
    const match = /[/\\]node_modules[/\\]((?:@[^/\\]+[/\\])?[^/\\]+)[/\\]/.exec(file.slice(file.lastIndexOf('node_modules') - 1));
    if (match) names.add(match[1].replace('\\', '/'));
  }
  return [...names].sort();
}

process.on('SIGUSR2', () => process.stdout.write(`loaded-packages: ${JSON.stringify(loadedPackages())}\n`));
