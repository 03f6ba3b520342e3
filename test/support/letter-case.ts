/**
 * The text with every letter's case swapped. Secrets (token keys, redemption and invite codes, access
 * tokens) must match only in their exact case: MySQL's default collation compares them case-insensitively.
 */
export function swapLetterCase(text: string): string {
  return [...text].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
}
