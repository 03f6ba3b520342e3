import bcrypt from 'bcryptjs';

/** bcrypt with new-api's cost (10), so a new-api users table keeps working both ways. */
const COST = 10;

export function hashPassword(plain: string): Promise<string> {
  return bcrypt.hash(plain, COST);
}

export async function verifyPassword(plain: string, hash: string): Promise<boolean> {
  if (!hash.startsWith('$2')) return false;
  return bcrypt.compare(plain, hash);
}

/** A hash to compare against when the user does not exist, so both failures take the same time. */
export const DUMMY_HASH = bcrypt.hashSync('timing-equaliser', COST);
