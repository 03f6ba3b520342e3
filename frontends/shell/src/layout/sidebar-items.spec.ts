import { describe, expect, it } from 'vitest';
import { visibleSections } from './sidebar-items';

const keys = (sections: ReturnType<typeof visibleSections>) => sections.map((s) => `${s.key}: ${s.items.map((i) => i.key).join(' ')}`);

// One rule set feeds both the desktop sidebar and the mobile menu sheet (spec 001 §2 Sidebar).
describe('visibleSections', () => {
  it('hides the flag-gated entries and the admin-only ones from an ordinary user', () => {
    expect(keys(visibleSections({}, false))).toEqual([
      'chat: playground chat',
      'console: token log',
      'admin: user setting',
      'personal: topup personal',
    ]);
  });

  it('shows channels and redemption codes to admins and the dashboard, drawing and task entries when their flags are on', () => {
    const status = { enable_data_export: true, enable_drawing: true, enable_task: true };
    expect(keys(visibleSections(status, true))).toEqual([
      'chat: playground chat',
      'console: detail token log midjourney task',
      'admin: channel redemption user setting',
      'personal: topup personal',
    ]);
  });

  it('treats a flag that is not exactly true as off', () => {
    const status = { enable_drawing: 'true' as unknown as boolean };
    expect(
      visibleSections(status, true)
        .find((s) => s.key === 'console')
        ?.items.map((i) => i.key),
    ).toEqual(['token', 'log']);
  });
});
