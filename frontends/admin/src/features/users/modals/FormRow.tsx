import type { ReactNode } from 'react';
import { Typography } from '@console/kit';

export function FormRow({ label, extra, children }: { label: string; extra?: ReactNode; children: ReactNode }) {
  return (
    <div style={{ marginBottom: 16 }}>
      <Typography.Text strong style={{ display: 'block', marginBottom: 6 }}>
        {label}
      </Typography.Text>
      {children}
      {extra && (
        <Typography.Text type="tertiary" size="small" style={{ display: 'block', marginTop: 4 }}>
          {extra}
        </Typography.Text>
      )}
    </div>
  );
}
