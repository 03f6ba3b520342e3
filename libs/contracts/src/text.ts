import { z } from 'zod';

/**
 * A text's length in characters (Unicode code points), not UTF-16 units, so an emoji counts once as it
 * does in new-api's rune count (its validator's `max` on names, its redemption name check).
 */
export const characterCount = (text: string): number => [...text].length;

/**
 * A trimmed name of at most `max` characters (code points). Not for passwords: those stay limited in UTF-16
 * units, which keeps 20 of them within bcrypt's 72 bytes.
 */
export const nameText = (max: number, message: string) =>
  z
    .string()
    .trim()
    .refine((text) => characterCount(text) <= max, message);
