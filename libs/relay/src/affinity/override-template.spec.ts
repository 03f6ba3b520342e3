import { describe, expect, it } from 'vitest';
import { mergeOverrideTemplate } from './override-template.js';

describe('mergeOverrideTemplate', () => {
  it("adds the template's keys under the channel's own, and leaves out operations", () => {
    expect(mergeOverrideTemplate({ temperature: 0.7 }, { temperature: 0.2, top_p: 0.9, operations: [{ mode: 'pass_headers' }] })).toEqual({
      temperature: 0.7,
      top_p: 0.9,
    });
    expect(mergeOverrideTemplate(null, { top_p: 0.9 })).toEqual({ top_p: 0.9 });
  });
});
