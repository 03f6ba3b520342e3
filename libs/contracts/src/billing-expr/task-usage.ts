import { BillingExprError } from './parse.js';

/**
 * What a task expression reads with u("key"): facts of one task (a video's seconds and resolution …), taken from
 * the submit and overlaid by what the provider reports at the end. new-api's task usage expressions return US$
 * for the whole task, not US$ per million tokens.
 */
export type TaskUsage = Readonly<Record<string, number | string>>;

interface NumberFact {
  kind: 'number';
  /** The largest value the save-time check tries (new-api's unit ceilings). */
  ceiling: number;
  description: string;
}
interface EnumFact {
  kind: 'enum';
  /** The values the save-time check tries; a provider may report others. */
  values: readonly string[];
  description: string;
}

const INT32_MAX = 2_147_483_647;

/** The facts task providers report (the union over the providers: a fact a provider does not know reads 0 or ''). */
export const TASK_USAGE_FACTS: Readonly<Record<string, NumberFact | EnumFact>> = {
  seconds: { kind: 'number', ceiling: 3600, description: 'seconds of video asked for, then as rendered' },
  resolution: { kind: 'enum', values: ['480p', '720p', '1080p', '4k'], description: 'video resolution: 720p, 1080p, 4k …' },
  mode: { kind: 'enum', values: ['std', 'pro'], description: 'generation mode (Kling: std or pro)' },
  count: { kind: 'number', ceiling: 128, description: 'pictures or clips asked for' },
  tokens: { kind: 'number', ceiling: INT32_MAX, description: 'tokens the provider reports at the end (Doubao Seedance)' },
};

export const TASK_USAGE_KEYS: readonly string[] = Object.keys(TASK_USAGE_FACTS);

/** u(key): the task's fact, or 0 / '' when this task's provider does not report it. */
export function usageFact(usage: TaskUsage, key: string): number | string {
  const fact = Object.hasOwn(TASK_USAGE_FACTS, key) ? TASK_USAGE_FACTS[key] : undefined;
  if (!fact) throw new BillingExprError(`u() reads ${TASK_USAGE_KEYS.join(', ')}; not ${JSON.stringify(key)}`);
  const value = Object.hasOwn(usage, key) ? usage[key] : undefined;
  if (fact.kind === 'number') return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
  return typeof value === 'string' ? value : '';
}

/**
 * The usage vectors of the save-time check (new-api's): every number at 0, 1 and its ceiling together, times
 * every combination of the enum values.
 */
export function smokeUsages(): TaskUsage[] {
  let combos: Record<string, number | string>[] = [{}];
  for (const [key, fact] of Object.entries(TASK_USAGE_FACTS)) {
    if (fact.kind === 'enum') combos = combos.flatMap((combo) => fact.values.map((value) => ({ ...combo, [key]: value })));
  }
  const numbers = Object.entries(TASK_USAGE_FACTS).filter((entry): entry is [string, NumberFact] => entry[1].kind === 'number');
  return [0, 1, -1].flatMap((level) =>
    combos.map((combo) => {
      const usage: Record<string, number | string> = { ...combo };
      for (const [key, fact] of numbers) usage[key] = level < 0 ? fact.ceiling : level;
      return usage;
    }),
  );
}
