import { Writable } from 'node:stream';

/**
 * Planted secrets and the scan for them (threats K1–K3, issue 22 item 1): every response body and log line
 * of a run is searched for any 8-character window of each secret's distinctive part, so a partly masked
 * secret counts as a leak when more than a few characters show.
 */
export interface CanaryFinding {
  secret: string;
  where: string;
  window: string;
}

/** The first 8-character window of `secret` (without a `sk-` prefix) found in `text`. */
export function leakedWindow(text: string, secret: string): string | undefined {
  const distinctive = secret.replace(/^sk-/, '');
  for (let i = 0; i + 8 <= distinctive.length; i++) {
    const window = distinctive.slice(i, i + 8);
    if (text.includes(window)) return window;
  }
  return undefined;
}

/** bcrypt hashes (a password hash is a secret too: threats K2). */
const PASSWORD_HASH = /\$2[aby]\$\d\d\$[./A-Za-z0-9]{20,}/;

export class CanaryScan {
  private readonly secrets = new Map<string, string>();
  /** Where a secret may legitimately appear: its owner revealing it on purpose. */
  private readonly allowed = new Map<string, (where: string) => boolean>();
  readonly findings: CanaryFinding[] = [];
  readonly logLines: string[] = [];
  bodies = 0;

  plant(name: string, secret: string, allowedWhere?: (where: string) => boolean): void {
    if (secret.length < 12) throw new Error(`canary ${name} is too short to be recognised`);
    this.secrets.set(name, secret);
    if (allowedWhere) this.allowed.set(name, allowedWhere);
  }

  get size(): number {
    return this.secrets.size;
  }

  /** Scans one response body; `where` names the caller and the route, e.g. `owner POST /api/token/:id/key`. */
  scanBody(where: string, text: string): void {
    this.bodies++;
    this.scan(`body of ${where}`, text, where);
  }

  /** A log destination for the gateway that keeps every line for scanLogs(). */
  logDestination(): Writable {
    return new Writable({
      write: (chunk, _encoding, done) => {
        this.logLines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
  }

  scanLogs(): void {
    for (const [index, line] of this.logLines.entries()) this.scan(`log line ${index + 1}`, line);
  }

  private scan(where: string, text: string, route?: string): void {
    for (const [name, secret] of this.secrets) {
      const window = leakedWindow(text, secret);
      if (window && !(route && this.allowed.get(name)?.(route))) this.findings.push({ secret: name, where, window });
    }
    const hash = PASSWORD_HASH.exec(text);
    if (hash) this.findings.push({ secret: 'a bcrypt password hash', where, window: hash[0].slice(0, 12) });
  }
}
