/**
 * Removes the channel key from a provider message before it reaches the console or other_info
 * (threats K3: some providers echo the key they rejected). Multi-part keys are redacted part by part.
 */
export function redactKey(message: string, key: string): string {
  const parts = [key, ...key.split(/[|\n]/)].map((p) => p.trim()).filter((p) => p.length >= 6);
  let out = message;
  for (const part of parts.sort((a, b) => b.length - a.length)) out = out.split(part).join(`${part.slice(0, 3)}***`);
  return out;
}

/** A run this long copied from a key is treated as a piece of it (OpenAI quotes `sk-proj-abc1…wxyz`). */
export const FRAGMENT_CHARS = 8;
/** Shorter secrets are too likely to be ordinary words; they are only hidden when the message quotes them whole. */
export const MIN_SECRET_CHARS = 6;

/**
 * Every piece of a channel's keys removed from a message that goes to a relay client or a log: each key
 * of a multi-key channel, whole or as any run of FRAGMENT_CHARS characters copied from it (providers and
 * proxies echo masked keys such as `sk-abc12****wxyz`). Runs are replaced by `***`. A JSON key (Vertex
 * service account) contributes its long string values instead of its JSON text, so that field names in
 * an ordinary message are left alone. Runs only on error paths: the cost is linear in message × key size.
 */
export function redactKeys(message: string, keys: readonly string[]): string {
  const secrets = keys.flatMap(secretsOf).filter((s) => s.length >= MIN_SECRET_CHARS);
  if (!message || secrets.length === 0) return message;
  const hidden = new Uint8Array(message.length);
  const grams = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < FRAGMENT_CHARS) markAll(message, secret, hidden);
    else for (let i = 0; i + FRAGMENT_CHARS <= secret.length; i++) grams.add(secret.slice(i, i + FRAGMENT_CHARS));
  }
  if (grams.size > 0)
    for (let i = 0; i + FRAGMENT_CHARS <= message.length; i++)
      if (grams.has(message.slice(i, i + FRAGMENT_CHARS))) hidden.fill(1, i, i + FRAGMENT_CHARS);
  let out = '';
  for (let i = 0; i < message.length; i++) {
    if (!hidden[i]) out += message[i];
    else if (i === 0 || !hidden[i - 1]) out += '***';
  }
  return out;
}

function markAll(message: string, secret: string, hidden: Uint8Array): void {
  for (let at = message.indexOf(secret); at >= 0; at = message.indexOf(secret, at + 1)) hidden.fill(1, at, at + secret.length);
}

/**
 * A part of a key that is no secret and reads like ordinary text: a URL (token_uri, auth_uri; their runs
 * such as `https://` would be masked in every answer that quotes a link), a PEM armour line, a cloud region
 * (AWS `AK|SK|us-east-1`) or an API version date (`2024-02-01`).
 */
function isPublicPart(part: string): boolean {
  return (
    /^https?:\/\//.test(part) ||
    part.startsWith('-----') ||
    /^[a-z]{2}(-gov)?-[a-z]+-\d{1,2}$/.test(part) ||
    /^\d{4}-\d{2}-\d{2}(-preview)?$/.test(part)
  );
}

/** The secret strings of one stored key: its parts (`a|b`, one per line) or a JSON key's long string values. */
export function secretsOf(key: string): string[] {
  const trimmed = key.trim();
  if (trimmed.startsWith('{')) {
    try {
      const values = Object.values(JSON.parse(trimmed) as Record<string, unknown>).filter(
        (v): v is string => typeof v === 'string' && v.length >= 16,
      );
      return values
        .flatMap((v) => v.split('\n'))
        .map((p) => p.trim())
        .filter((p) => !isPublicPart(p));
    } catch {
      // not JSON after all: treated as text below
    }
  }
  const parts = trimmed.split(/[|\n]/).map((p) => p.trim());
  // A key of several parts is as secret as its secret parts: the whole's runs would span a public one.
  return parts.length === 1 ? parts : parts.filter((p) => !isPublicPart(p));
}
