/**
 * Just enough exact decimal arithmetic for billing: new-api settles with shopspring/decimal, which turns
 * each float ratio into its shortest decimal text (0.075 is exactly 0.075) and multiplies exactly. Doing
 * the same here keeps every charge identical to new-api's; plain doubles would drift by one quota where a
 * product lands next to .5 (0.1 × 3 is 0.30000000000000004 in doubles).
 */
export interface Decimal {
  /** value = units / 10^scale */
  units: bigint;
  scale: number;
}

const POW10: bigint[] = [1n];
function pow10(n: number): bigint {
  while (POW10.length <= n) POW10.push(POW10[POW10.length - 1]! * 10n);
  return POW10[n]!;
}

/** The exact value of the number's shortest round-trip text, as shopspring's NewFromFloat does. */
export function dec(value: number): Decimal {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  if (Number.isInteger(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER) return { units: BigInt(value), scale: 0 };
  const [mantissa, exponentText] = String(value).toLowerCase().split('e') as [string, string | undefined];
  const [whole, fraction = ''] = mantissa.split('.') as [string, string | undefined];
  let units = BigInt(whole + fraction);
  let scale = fraction.length - Number(exponentText ?? 0);
  if (scale < 0) {
    units *= pow10(-scale);
    scale = 0;
  }
  return { units, scale };
}

function align(a: Decimal, b: Decimal): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.units * pow10(scale - a.scale), b.units * pow10(scale - b.scale), scale];
}

export function add(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = align(a, b);
  return { units: x + y, scale };
}

export function mul(a: Decimal, b: Decimal): Decimal {
  return { units: a.units * b.units, scale: a.scale + b.scale };
}

export function sign(a: Decimal): -1 | 0 | 1 {
  return a.units === 0n ? 0 : a.units > 0n ? 1 : -1;
}

/** Rounded half away from zero to an integer (shopspring's Round(0)). */
export function roundToInteger(a: Decimal): number {
  const divisor = pow10(a.scale);
  const quotient = a.units / divisor;
  const remainder = a.units % divisor;
  const twice = (remainder < 0n ? -remainder : remainder) * 2n;
  const rounded = twice >= divisor && remainder !== 0n ? quotient + (a.units < 0n ? -1n : 1n) : quotient;
  return Number(rounded);
}

/** The integer part, toward zero (shopspring's IntPart). */
export function truncateToInteger(a: Decimal): number {
  return Number(a.units / pow10(a.scale));
}
