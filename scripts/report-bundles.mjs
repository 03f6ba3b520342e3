// Prints each console app's JS size (raw and gzipped), then what Chromium really fetches: the shell's first
// load (/login) and what visiting each remote's route adds.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CONSOLE_APPS } from './console-apps.mjs';

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
// [remote, route]: every admin page is measured, each against the per-page budget.
const REMOTE_ROUTES = [
  ['admin', '/user'],
  ['admin', '/channel'],
  ['admin', '/redemption'],
  ['admin', '/setting'],
  ['user', '/token'],
  ['playground', '/playground'],
];
const PAGE_BUDGET_KB = 150;
const EMPTY_PAGE = { items: [], total: 0, page: 1, page_size: 10 };

/** Where a request path lives on disk: a remote under /remotes/<name>/, anything else in the shell. */
function fileFor(path) {
  const remote = /^\/remotes\/([^/]+)(\/.*)$/.exec(path);
  return remote ? join('frontends', remote[1], 'dist', remote[2]) : join('frontends', 'shell', 'dist', path);
}

/** Serves the built console as the gateway does, with a minimal API, so pages boot exactly as in production. */
function serveConsole() {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (path.startsWith('/api/')) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const remotes = Object.fromEntries(REMOTE_ROUTES.map(([name]) => [name, `/remotes/${name}/mf-manifest.json`]));
      const data = { '/api/status': { setup: true, system_name: 'bundle report' }, '/api/console/remotes': remotes }[path] ?? EMPTY_PAGE;
      return res.end(JSON.stringify({ success: true, message: '', data }));
    }
    const file = fileFor(path);
    const target = existsSync(file) && statSync(file).isFile() ? file : join('frontends', 'shell', 'dist', 'index.html');
    res.writeHead(200, { 'Content-Type': CONTENT_TYPES[extname(target)] ?? 'application/octet-stream' });
    res.end(readFileSync(target));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function measure(paths) {
  let raw = 0;
  let gzip = 0;
  for (const path of paths) {
    const content = readFileSync(fileFor(path));
    raw += content.length;
    gzip += gzipSize(content);
  }
  return { raw, gzip, files: paths.size };
}

/** The scripts a fresh browser fetches for one route (a logged-in admin, for console routes). */
async function scriptsFor(browser, origin, route, loggedIn) {
  const page = await browser.newPage();
  if (loggedIn) await page.addInitScript(() => localStorage.setItem('user', JSON.stringify({ id: 1, username: 'report', role: 100 })));
  const scripts = new Set();
  const remoteCalls = new Set();
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (request.resourceType() === 'script') scripts.add(path);
    if (path.startsWith('/remotes/') || path === '/api/console/remotes') remoteCalls.add(path);
  });
  let lastRequestAt = Date.now();
  page.on('request', () => {
    lastRequestAt = Date.now();
  });
  await page.goto(`${origin}${route}`, { waitUntil: 'networkidle' });
  // A console route loads its remote, then the page's own chunks, after the shell has booted: the visit is
  // over once a remote was fetched and nothing new was requested for a second (at most 15 s).
  const deadline = Date.now() + 15_000;
  while (loggedIn && Date.now() < deadline && (remoteCalls.size < 2 || Date.now() - lastRequestAt < 1_000)) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await page.close();
  return { scripts, remoteCalls };
}

/**
 * The shell's first load is what a browser fetches for /login: entry, MF runtime and the shared singletons
 * it needs, but no remote and no lazily loaded page. Each remote route then adds the remote's own code.
 */
async function measureLoads() {
  if (!existsSync(CHROMIUM)) return null;
  const { chromium } = await import('playwright-core');
  const server = await serveConsole();
  const origin = `http://127.0.0.1:${server.address().port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const login = await scriptsFor(browser, origin, '/login', false);
    const remotes = [];
    for (const [name, route] of REMOTE_ROUTES) {
      if (!existsSync(join('frontends', name, 'dist'))) continue;
      // A visit that fetched nothing from its remote was cut short (the page went idle before the remote
      // started); it is measured again rather than reported as a free page.
      let added = new Set();
      for (let attempt = 0; attempt < 3 && ![...added].some((path) => path.startsWith(`/remotes/${name}/`)); attempt++) {
        const visit = await scriptsFor(browser, origin, route, true);
        added = new Set([...visit.scripts].filter((path) => !login.scripts.has(path)));
      }
      const fromRemote = new Set([...added].filter((path) => path.startsWith(`/remotes/${name}/`)));
      remotes.push({ name, route, added: measure(added), fromRemote: measure(fromRemote) });
    }
    return { firstLoad: { ...measure(login.scripts), remoteCalls: [...login.remoteCalls] }, remotes };
  } finally {
    await browser.close();
    server.close();
  }
}

console.log('console bundles (all JS in dist)');
for (const app of CONSOLE_APPS) {
  const size = appSizes(app);
  console.log(`  ${app.padEnd(11)} ${size ? `${kb(size.raw).padStart(10)} raw  ${kb(size.gzip).padStart(9)} gzip` : 'not built'}`);
}
const loads = existsSync(join('frontends', 'shell', 'dist')) ? await measureLoads() : null;
if (loads) {
  const { firstLoad, remotes } = loads;
  const verdict = firstLoad.gzip / 1024 <= FIRST_LOAD_BUDGET_KB ? 'within' : 'OVER';
  console.log(
    `shell first load (/login, ${firstLoad.files} scripts): ${kb(firstLoad.raw)} raw, ${kb(firstLoad.gzip)} gzip — ${verdict} the ${FIRST_LOAD_BUDGET_KB} kB gzip budget`,
  );
  console.log(`remote requests on /login: ${firstLoad.remoteCalls.length === 0 ? 'none' : firstLoad.remoteCalls.join(', ')}`);
  for (const { name, route, added, fromRemote } of remotes) {
    const within = added.gzip / 1024 <= PAGE_BUDGET_KB ? 'within' : 'OVER';
    console.log(
      `  visiting ${route.padEnd(11)} adds ${kb(added.gzip).padStart(9)} gzip (${added.files} scripts), ${kb(fromRemote.gzip)} of it from remote ${name} — ${within} ${PAGE_BUDGET_KB} kB`,
    );
  }
} else {
  console.log(
    `shell first load: not measured (${existsSync(join('frontends', 'shell', 'dist')) ? `${CHROMIUM} missing` : 'shell not built'})`,
  );
}
