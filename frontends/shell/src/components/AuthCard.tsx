import type { ReactNode } from 'react';
import { Card, Typography } from '@console/kit';

/** The centred card used by login, register and password reset. */
export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div style={{ display: 'flex', justifyContent: 'center', padding: '48px 16px' }}>
      <Card style={{ width: 400, maxWidth: '100%' }}>
        <Typography.Title heading={3} style={{ textAlign: 'center', marginBottom: 24 }}>
          {title}
        </Typography.Title>
        {children}
      </Card>
    </div>
  );
}

export function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is `children` (a Semi input), which the rule cannot see.
    <label style={{ display: 'block', marginBottom: 16 }}>
      <Typography.Text strong style={{ display: 'block', marginBottom: 6 }}>
        {label}
      </Typography.Text>
      {children}
    </label>
  );
}
