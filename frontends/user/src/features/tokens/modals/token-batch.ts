const SUFFIX_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function randomSuffix(length = 6): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return Array.from(bytes, (byte) => SUFFIX_ALPHABET[byte % SUFFIX_ALPHABET.length]).join('');
}

/** Names for a batch of tokens: the first keeps the typed name, the others get a random 6-character suffix. */
export function batchNames(name: string, count: number): string[] {
  return Array.from({ length: count }, (_, index) => (index === 0 ? name : `${name}-${randomSuffix()}`));
}
