/**
 * Last line of defence against secrets in log lines (the first is never logging them). Each rule keeps
 * at most four characters of what it hides, so a line stays useful for matching a key to a report.
 */
const RULES: [RegExp, (match: string, ...groups: string[]) => string][] = [
  // API keys in the shapes providers and this gateway use: sk-..., sk-ant-..., AIza...
  [/\b(sk-(?:ant-|proj-)?)([A-Za-z0-9_-]{8,})/g, (_m, prefix, rest) => `${prefix}${rest.slice(0, 4)}…`],
  [/\b(AIza)([A-Za-z0-9_-]{16,})/g, (_m, prefix) => `${prefix}…`],
  // Authorization header values.
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi, (_m, scheme) => `${scheme} [redacted]`],
  // Credentials inside URLs (DSNs, Redis, webhooks).
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+@/gi, (_m, head) => `${head}[redacted]@`],
  // key=value pairs whose name says secret (query strings, form bodies, messages).
  [
    /\b((?:api[_-]?key|key|token|access[_-]?token|secret|password|passwd|session|code)=)[^\s&"';,]{4,}/gi,
    (_m, name) => `${name}[redacted]`,
  ],
  // JSON fields whose name says secret.
  [/("(?:password|key|token|secret|access_token|client_secret|api_key|session)"\s*:\s*")[^"]{4,}"/gi, (_m, head) => `${head}[redacted]"`],
];

/** One cheap test first: most log strings (ids, model names, plain messages) contain none of the rules' anchors. */
const MAYBE_SECRET = /sk-|AIza|bearer|basic|:\/\/|=|"/i;

export function scrubSecrets(text: string): string {
  if (!MAYBE_SECRET.test(text)) return text;
  let out = text;
  for (const [pattern, replace] of RULES) out = out.replace(pattern, replace as (substring: string, ...args: unknown[]) => string);
  return out;
}

/** Query values of parameters that carry credentials (new-api accepts `?key=` on the relay). */
const SECRET_PARAM = /^(?:key|api[_-]?key|token|access[_-]?token|secret|client[_-]?secret|password|code|sign|signature|session|auth)$/i;

export function scrubUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const name of [...new Set(params.keys())]) if (SECRET_PARAM.test(name)) params.set(name, '[redacted]');
  return `${url.slice(0, q)}?${params.toString()}`;
}
