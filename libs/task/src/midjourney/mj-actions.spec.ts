import { describe, expect, it } from 'vitest';
import { forwardBody, MjRequestError, mjModelName, parseCustomId, parseSimpleChange, planSubmit } from './mj-actions.js';
import { upstreamPath } from './mj-relay.service.js';

describe('Midjourney request rules', () => {
  it('names the model of each action as new-api prices it', () => {
    expect(mjModelName('IMAGINE')).toBe('mj_imagine');
    expect(mjModelName('HIGH_VARIATION')).toBe('mj_high_variation');
    expect(mjModelName('SWAP_FACE')).toBe('swap_face');
  });

  it('reads "taskId U1" shortcuts and refuses the rest', () => {
    expect(parseSimpleChange('123 U2')).toEqual({ taskId: '123', action: 'UPSCALE', index: 2 });
    expect(parseSimpleChange('123 v4')).toEqual({ taskId: '123', action: 'VARIATION', index: 4 });
    expect(parseSimpleChange('123 R')).toEqual({ taskId: '123', action: 'REROLL' });
    expect(parseSimpleChange('123 U5')).toBeUndefined();
    expect(parseSimpleChange('123 X1')).toBeUndefined();
    expect(parseSimpleChange('123')).toBeUndefined();
  });

  it('maps plus button ids to actions', () => {
    expect(parseCustomId('MJ::JOB::upsample::2::abc')).toEqual({ action: 'UPSCALE', index: 2 });
    expect(parseCustomId('MJ::JOB::variation::3::abc')).toEqual({ action: 'VARIATION', index: 3 });
    expect(parseCustomId('MJ::JOB::low_variation::1::abc').action).toBe('LOW_VARIATION');
    expect(parseCustomId('MJ::JOB::pan_left::1::abc').action).toBe('PAN');
    expect(parseCustomId('MJ::Outpaint::50::1::abc').action).toBe('ZOOM');
    expect(parseCustomId('MJ::Inpaint::1::abc').action).toBe('INPAINT');
    expect(() => parseCustomId('MJ::JOB::upsample::x::abc')).toThrow('index_parse_failed');
    expect(() => parseCustomId('')).toThrow(MjRequestError);
    expect(() => parseCustomId('MJ::Whatever')).toThrow(/unknown_action/);
  });

  it('plans submits with new-api descriptions for missing fields', () => {
    expect(() => planSubmit('imagine', {})).toThrow('prompt_is_required');
    expect(() => planSubmit('change', { action: 'UPSCALE', index: 1 })).toThrow('task_id_is_required');
    expect(() => planSubmit('change', { taskId: '1', index: 1 })).toThrow('action_is_required');
    expect(() => planSubmit('change', { taskId: '1', action: 'UPSCALE' })).toThrow('index_is_required');
    expect(planSubmit('change', { taskId: '1', action: 'reroll' })).toMatchObject({ action: 'REROLL', originId: '1' });
    expect(planSubmit('action', { taskId: '9', customId: 'MJ::JOB::upsample::1::a' })).toMatchObject({ action: 'UPSCALE', originId: '9' });
    expect(planSubmit('modal', { taskId: '9' })).toMatchObject({ action: 'MODAL', originId: '9' });
    expect(planSubmit('blend', {})).toMatchObject({ action: 'BLEND' });
  });

  it('forwards the body under the Mj options', () => {
    const body = { prompt: 'cat --fast --relax', notifyHook: 'h', accountFilter: {} };
    expect(forwardBody(body, { notify: false, accountFilter: false, modeClear: false })).toEqual({ prompt: 'cat --fast --relax' });
    expect(forwardBody(body, { notify: true, accountFilter: true, modeClear: true })).toEqual({
      prompt: 'cat  ',
      notifyHook: 'h',
      accountFilter: {},
    });
  });

  it('drops a mode prefix from the forwarded path', () => {
    expect(upstreamPath('/mj-fast/mj/submit/imagine')).toBe('/mj/submit/imagine');
    expect(upstreamPath('/mj/submit/imagine')).toBe('/mj/submit/imagine');
  });
});
