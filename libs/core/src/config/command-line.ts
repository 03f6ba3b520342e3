import { ConfigError, type RawEnv } from './env-reader.js';

/** What the command line asked for besides running: new-api's `--version` and `--help`. */
export type CommandLineAction = 'run' | 'version' | 'help';

export const USAGE = 'Usage: main.js [--port <port>] [--log-dir <directory>] [--version] [--help]';

/**
 * new-api's flags (`--port`, `--log-dir`, `--version`, `--help`, with one or two dashes, `--name value` or
 * `--name=value`), so a container or service started with new-api's arguments (its docker-compose passes
 * `--log-dir /app/logs`) starts this gateway too. `--port` counts only when PORT is unset (PORT wins, as in
 * new-api); `--log-dir` is accepted and ignored: logs go to stdout as JSON lines. Other arguments are left alone.
 */
export function readCommandLine(argv: readonly string[], env: RawEnv): { env: RawEnv; action: CommandLineAction } {
  let action: CommandLineAction = 'run';
  let port: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const match = /^--?(port|log-dir|version|help)(?:=(.*))?$/.exec(argv[i]!);
    if (!match) continue;
    const [, name, inline] = match;
    if (name === 'version' || name === 'help') {
      if (action === 'run') action = name;
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new ConfigError(`--${name}`, 'a value is missing');
    if (name === 'port') port = value;
  }
  const portFromEnv = env.PORT !== undefined && env.PORT.trim() !== '';
  return { env: port !== undefined && !portFromEnv ? { ...env, PORT: port } : env, action };
}
