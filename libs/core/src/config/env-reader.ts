/**
 * Small typed readers over a raw environment map. Each reader throws a ConfigError that names the
 * variable, so a bad value stops boot with one clear line instead of failing on the first request.
 */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`Invalid environment variable ${variable}: ${detail}`);
    this.name = 'ConfigError';
  }
}

export type RawEnv = Record<string, string | undefined>;

export class EnvReader {
  constructor(private readonly env: RawEnv) {}

  private raw(name: string): string | undefined {
    const value = this.env[name];
    if (value === undefined) return undefined;
    const trimmed = value.trim();
    return trimmed === '' ? undefined : trimmed;
  }

  string(name: string, fallback: string): string;
  string(name: string): string | undefined;
  string(name: string, fallback?: string): string | undefined {
    return this.raw(name) ?? fallback;
  }

  int(name: string, fallback: number, range: { min?: number; max?: number } = {}): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^-?\d+$/.test(value)) throw new ConfigError(name, `expected an integer, got '${value}'`);
    const parsed = Number(value);
    if (range.min !== undefined && parsed < range.min) {
      throw new ConfigError(name, `must be at least ${range.min}, got ${parsed}`);
    }
    if (range.max !== undefined && parsed > range.max) {
      throw new ConfigError(name, `must be at most ${range.max}, got ${parsed}`);
    }
    return parsed;
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    // Go's strconv.ParseBool (new-api) also takes t/T and f/F.
    if (['true', 't', '1', 'yes', 'on'].includes(value)) return true;
    if (['false', 'f', '0', 'no', 'off'].includes(value)) return false;
    throw new ConfigError(name, `expected true or false, got '${value}'`);
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      throw new ConfigError(name, `expected one of ${allowed.join(', ')}, got '${value}'`);
    }
    return value as T;
  }

  url(name: string, protocols: readonly string[]): string | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      throw new ConfigError(name, `not a valid URL`);
    }
    if (!protocols.includes(parsed.protocol)) {
      throw new ConfigError(name, `expected a ${protocols.join(' or ')} URL`);
    }
    return value;
  }
}
