import { describe, expect, it } from 'vitest';
import { CreateRedemptionSchema, REDEMPTION_NAME_RULE, UpdateRedemptionSchema } from './redemption.contract.js';
import { characterCount } from './text.js';

/** Spec 001 §5: a redemption code name is 1-20 characters, counted as characters and not UTF-16 units. */
describe('redemption code name length', () => {
  const emoji = (count: number) => '😀'.repeat(count);
  const messageOf = (result: { success: boolean; error?: { issues: { message: string }[] } }) => result.error?.issues[0]?.message;

  it('counts an astral character (two UTF-16 units) once', () => {
    expect(emoji(15).length).toBe(30);
    expect(characterCount(emoji(15))).toBe(15);
    expect(characterCount('兑换码')).toBe(3);
  });

  it('accepts 20 emoji on create and update, and refuses 21 with the spec message', () => {
    expect(CreateRedemptionSchema.parse({ name: emoji(20), quota: 1 }).name).toBe(emoji(20));
    expect(UpdateRedemptionSchema.parse({ id: 1, name: emoji(15), quota: 1 }).name).toBe(emoji(15));
    expect(messageOf(CreateRedemptionSchema.safeParse({ name: emoji(21), quota: 1 }))).toBe(REDEMPTION_NAME_RULE);
    expect(messageOf(UpdateRedemptionSchema.safeParse({ id: 1, name: emoji(21), quota: 1 }))).toBe(REDEMPTION_NAME_RULE);
  });

  it('keeps the plain-text limits: an empty create name is allowed (defaulted later), an empty update name is not', () => {
    expect(REDEMPTION_NAME_RULE).toBe('redemption code name must be 1-20 characters');
    expect(CreateRedemptionSchema.parse({ quota: 1 }).name).toBe('');
    expect(CreateRedemptionSchema.parse({ name: ` ${'x'.repeat(20)} `, quota: 1 }).name).toBe('x'.repeat(20));
    expect(messageOf(CreateRedemptionSchema.safeParse({ name: 'x'.repeat(21), quota: 1 }))).toBe(REDEMPTION_NAME_RULE);
    expect(messageOf(UpdateRedemptionSchema.safeParse({ id: 1, name: '  ', quota: 1 }))).toBe(REDEMPTION_NAME_RULE);
    expect(messageOf(CreateRedemptionSchema.safeParse({ name: 5, quota: 1 }))).toBe('name must be text');
  });
});
