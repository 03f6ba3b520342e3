import type { ReactNode } from 'react';
import { Typography } from './semi';

interface FormRowProps {
  label: string;
  /** A muted line of text under the field, e.g. what a raw quota number is worth. */
  hint?: ReactNode;
  /** Controls under the field, e.g. preset buttons that fill it in. */
  extra?: ReactNode;
  children: ReactNode;
}

/** One labelled field of a drawer form. */
export function FormRow({ label, hint, extra, children }: FormRowProps) {
  return (
    <div style={{ marginBottom: 16 }}>
      <Typography.Text strong style={{ display: 'block', marginBottom: 6 }}>
        {label}
      </Typography.Text>
      {children}
      {hint && (
        <Typography.Text type="tertiary" size="small" style={{ display: 'block', marginTop: 4 }}>
          {hint}
        </Typography.Text>
      )}
      {extra && <div style={{ marginTop: 6 }}>{extra}</div>}
    </div>
  );
}
