import { execFile, spawnSync, type ExecFileException } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { RANK_TABLE_SOURCE } from './rank-table-source.js';

export type EncodingName = 'o200k_base' | 'cl100k_base';

/** What a count needs from gpt-tokenizer's data, all of it off the V8 heap except a RegExp. */
export interface RankTables {
  /** The bytes of every token, end to end. */
  tokenBytes: Uint8Array;
  /** `tokenBytes[offsets[rank]..offsets[rank + 1])` is token `rank`; empty for a rank gpt-tokenizer never reaches. */
  offsets: Uint32Array;
  /** The encoding's pre-tokenizer, as gpt-tokenizer defines it. */
  splitRegex: RegExp;
}

interface Header {
  splitSource: string;
  splitFlags: string;
  tokenBytesLength: number;
  offsetsLength: number;
}

const resolveModule = createRequire(import.meta.url).resolve;
/** The build takes a quarter to half a second; this only bounds a child that hangs. */
const BUILD_TIMEOUT_MS = 30_000;
/** The o200k output is about 2.2 MB. */
const MAX_OUTPUT_BYTES = 64 * 2 ** 20;
const NEWLINE = 0x0a;

function builderArguments(encoding: EncodingName): string[] {
  const paths = ['gpt-tokenizer/cjs/modelParams', `gpt-tokenizer/cjs/bpeRanks/${encoding}`, 'gpt-tokenizer/cjs/utfUtil'].map((id) =>
    resolveModule(id),
  );
  return ['-e', RANK_TABLE_SOURCE, encoding, ...paths];
}

/**
 * The builder needs no flags, and NODE_OPTIONS could hand it ours: an --inspect port already taken, an APM
 * agent's --require that would load into it, a heap limit sized for the gateway.
 */
function builderEnvironment(): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _ignored, ...environment } = process.env;
  return environment;
}

/** The child's stderr is the builder's stack; the exit code or signal when it is empty. */
function childFailure(stderr: Buffer | undefined, exit: unknown): string {
  return stderr?.toString('utf8').trim() || `the builder exited with ${String(exit)}`;
}

/** Copies out of the child's output, so the tables are aligned and the output buffer can be freed. */
function parseOutput(output: Buffer): RankTables {
  const headerEnd = output.indexOf(NEWLINE);
  const header = JSON.parse(output.subarray(0, headerEnd).toString('utf8')) as Header;
  const bytesStart = headerEnd + 1;
  const offsetsStart = bytesStart + header.tokenBytesLength;
  const offsets = new Uint32Array(header.offsetsLength);
  const expectedLength = offsetsStart + offsets.byteLength;
  if (output.length !== expectedLength) throw new Error(`the builder wrote ${output.length} bytes, not ${expectedLength}`);
  new Uint8Array(offsets.buffer).set(output.subarray(offsetsStart));
  return {
    tokenBytes: new Uint8Array(output.subarray(bytesStart, offsetsStart)),
    offsets,
    splitRegex: new RegExp(header.splitSource, header.splitFlags),
  };
}

function buildFailed(encoding: EncodingName, reason: unknown): Error {
  return new Error(`Building the ${encoding} token tables failed: ${reason instanceof Error ? reason.message : String(reason)}`);
}

/** Builds an encoding's tables in a child process without blocking this one (boot). */
export async function buildRankTables(encoding: EncodingName): Promise<RankTables> {
  let stdout: Buffer;
  try {
    ({ stdout } = await promisify(execFile)(process.execPath, builderArguments(encoding), {
      encoding: 'buffer',
      env: builderEnvironment(),
      maxBuffer: MAX_OUTPUT_BYTES,
      timeout: BUILD_TIMEOUT_MS,
      windowsHide: true,
    }));
  } catch (error) {
    const { stderr, code, signal } = error as ExecFileException & { stderr?: Buffer };
    throw buildFailed(encoding, childFailure(stderr, signal ?? code));
  }
  try {
    return parseOutput(stdout);
  } catch (error) {
    throw buildFailed(encoding, error);
  }
}

/** The same, blocking this thread until the child is done: for a count that cannot wait. */
export function buildRankTablesSync(encoding: EncodingName): RankTables {
  const child = spawnSync(process.execPath, builderArguments(encoding), {
    env: builderEnvironment(),
    maxBuffer: MAX_OUTPUT_BYTES,
    timeout: BUILD_TIMEOUT_MS,
    windowsHide: true,
  });
  if (child.error) throw buildFailed(encoding, child.error);
  if (child.status !== 0) throw buildFailed(encoding, childFailure(child.stderr, child.signal ?? child.status));
  try {
    return parseOutput(child.stdout);
  } catch (error) {
    throw buildFailed(encoding, error);
  }
}
