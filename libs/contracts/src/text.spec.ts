import { describe, expect, it } from 'vitest';
import { SetupSchema } from './setup.contract.js';
import { CreateTokenSchema } from './token.contract.js';
import { CreateUserSchema, UpdateSelfSchema, UpdateUserSchema } from './user.contract.js';

/** Names are limited in characters (new-api's validator counts runes), so an emoji is one, not two. */
describe('name limits count characters', () => {
  const emoji = (count: number) => '😀'.repeat(count);
  const messageOf = (result: { success: boolean; error?: { issues: { message: string }[] } }) => result.error?.issues[0]?.message;

  it('usernames: 12 emoji pass, 13 are refused, on every schema that takes one', () => {
    expect(CreateUserSchema.parse({ username: emoji(12), password: 'x' }).username).toBe(emoji(12));
    expect(UpdateUserSchema.parse({ id: 1, username: emoji(12) }).username).toBe(emoji(12));
    expect(SetupSchema.parse({ username: emoji(12) }).username).toBe(emoji(12));
    for (const result of [
      CreateUserSchema.safeParse({ username: emoji(13) }),
      UpdateUserSchema.safeParse({ id: 1, username: emoji(13) }),
      SetupSchema.safeParse({ username: emoji(13) }),
    ])
      expect(messageOf(result)).toBe('username must be at most 12 characters');
  });

  it('an admin edit still refuses an empty username', () => {
    expect(messageOf(UpdateUserSchema.safeParse({ id: 1, username: '  ' }))).toBe('username cannot be empty');
  });

  it('display names: 20 CJK or emoji pass, 21 are refused', () => {
    expect(UpdateSelfSchema.parse({ display_name: emoji(20) }).display_name).toBe(emoji(20));
    expect(CreateUserSchema.parse({ display_name: '名'.repeat(20) }).display_name).toBe('名'.repeat(20));
    expect(messageOf(UpdateSelfSchema.safeParse({ display_name: emoji(21) }))).toBe('display name must be at most 20 characters');
  });

  it('token names: 50 emoji pass, 51 are refused, blank is required', () => {
    expect(CreateTokenSchema.parse({ name: emoji(50) }).name).toBe(emoji(50));
    expect(messageOf(CreateTokenSchema.safeParse({ name: emoji(51) }))).toBe('token name is too long (at most 50 characters)');
    expect(messageOf(CreateTokenSchema.safeParse({ name: '   ' }))).toBe('name is required');
  });
});
