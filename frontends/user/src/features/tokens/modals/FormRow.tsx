import type { ReactNode } from 'react';
import { Typography } from '@console/kit';

export function FormRow({ label, extra, children }: { label: string; extra?: ReactNode; children: ReactNode }) {
  return (
    <div style={{ marginBottom: 16 }}>
      <Typography.Text strong style={{ display: 'block', marginBottom: 6 }}>
        {label}
      </Typography.Text>
      {children}
      {extra && <div style={{ marginTop: 6 }}>{extra}</div>}
    </div>
  );
}
