import { describe, expect, it } from 'vitest';
import { mergeOverrideTemplate } from './override-template.js';

describe('mergeOverrideTemplate', () => {
  it("adds the template's flat keys under the channel's own", () => {
    expect(mergeOverrideTemplate({ temperature: 0.7 }, { temperature: 0.2, top_p: 0.9 })).toEqual({ temperature: 0.7, top_p: 0.9 });
    expect(mergeOverrideTemplate(null, { top_p: 0.9 })).toEqual({ top_p: 0.9 });
  });

  it("runs the template's operations first, then the channel's, then the flat keys as sets", () => {
    const pass = { mode: 'pass_headers', value: ['Session_id'], keep_origin: true };
    const own = { mode: 'delete', path: 'user' };
    expect(mergeOverrideTemplate({ operations: [own] }, { operations: [pass] })).toEqual({ operations: [pass, own] });
    expect(mergeOverrideTemplate({ 'a.b': 1 }, { operations: [pass], top_p: 0.9 })).toEqual({
      operations: [pass, { mode: 'set', path: 'a\\.b', value: 1 }, { mode: 'set', path: 'top_p', value: 0.9 }],
    });
  });
});
