// Prints each console app's JS size (raw and gzipped) and the shell's first-load JS, measured in Chromium.
// The first load is what a browser really fetches for /login: entry, MF runtime and the shared singletons
// it needs, but no remote and no lazily loaded page.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';

const APPS = ['shell', 'admin', 'user', 'playground'];
const FIRST_LOAD_BUDGET_KB = 300;
const CHROMIUM = '/usr/bin/chromium';
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} kB`;
const gzipSize = (buffer) => gzipSync(buffer, { level: 9 }).length;

function jsFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return jsFiles(path);
    return name.endsWith('.js') ? [path] : [];
  });
}

function appSizes(app) {
  const dist = join('frontends', app, 'dist');
  if (!existsSync(dist)) return null;
  let raw = 0;
  let gzip = 0;
  for (const file of jsFiles(dist)) {
    const content = readFileSync(file);
    raw += content.length;
    gzip += gzipSize(content);
  }
  return { raw, gzip };
}

const CONTENT_TYPES = { '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.html': 'text/html' };

/** Serves the built shell with an SPA fallback and a minimal API, so the page boots exactly as in production. */
function serveShell(dist) {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (path.startsWith('/api/')) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const data = path === '/api/status' ? { setup: true, system_name: 'bundle report' } : null;
      return res.end(JSON.stringify({ success: true, message: '', data }));
    }
    const file = join(dist, path);
    const target = existsSync(file) && statSync(file).isFile() ? file : join(dist, 'index.html');
    res.writeHead(200, { 'Content-Type': CONTENT_TYPES[extname(target)] ?? 'application/octet-stream' });
    res.end(readFileSync(target));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function measureFirstLoad(dist) {
  if (!existsSync(CHROMIUM)) return null;
  const { chromium } = await import('playwright-core');
  const server = await serveShell(dist);
  const origin = `http://127.0.0.1:${server.address().port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  const scripts = new Set();
  try {
    const page = await browser.newPage();
    page.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.add(new URL(request.url()).pathname);
    });
    await page.goto(`${origin}/login`, { waitUntil: 'networkidle' });
  } finally {
    await browser.close();
    server.close();
  }
  let raw = 0;
  let gzip = 0;
  for (const path of scripts) {
    const content = readFileSync(join(dist, path));
    raw += content.length;
    gzip += gzipSize(content);
  }
  return { raw, gzip, files: scripts.size };
}

console.log('console bundles (all JS in dist)');
for (const app of APPS) {
  const size = appSizes(app);
  console.log(`  ${app.padEnd(11)} ${size ? `${kb(size.raw).padStart(10)} raw  ${kb(size.gzip).padStart(9)} gzip` : 'not built'}`);
}
const shellDist = join('frontends', 'shell', 'dist');
const firstLoad = existsSync(shellDist) ? await measureFirstLoad(shellDist) : null;
if (firstLoad) {
  const verdict = firstLoad.gzip / 1024 <= FIRST_LOAD_BUDGET_KB ? 'within' : 'OVER';
  console.log(`shell first load (/login, ${firstLoad.files} scripts): ${kb(firstLoad.raw)} raw, ${kb(firstLoad.gzip)} gzip — ${verdict} the ${FIRST_LOAD_BUDGET_KB} kB gzip budget`);
} else {
  console.log(`shell first load: not measured (${existsSync(shellDist) ? `${relative('.', CHROMIUM)} missing` : 'shell not built'})`);
}
