import { useEffect, useState } from 'react';
import { InputNumber } from '@console/kit/data';

interface InlineNumberProps {
  value: number | null;
  min: number;
  onSave(value: number): Promise<void>;
  testId?: string;
}

/**
 * A number edited in its table cell: saved when the field loses focus or Enter is pressed, only when
 * it changed; a refused save puts the stored value back.
 */
export function InlineNumber({ value, min, onSave, testId }: InlineNumberProps) {
  const [draft, setDraft] = useState<number | string>(value ?? '');
  const [saving, setSaving] = useState(false);
  useEffect(() => setDraft(value ?? ''), [value]);

  const commit = async () => {
    const next = Number(draft);
    if (draft === '' || !Number.isFinite(next) || next === value) return setDraft(value ?? '');
    setSaving(true);
    try {
      await onSave(Math.trunc(next));
    } catch {
      setDraft(value ?? '');
    } finally {
      setSaving(false);
    }
  };

  return (
    <InputNumber
      size="small"
      style={{ width: 80 }}
      value={draft}
      min={min}
      precision={0}
      disabled={saving}
      onChange={(next) => setDraft(next)}
      onBlur={() => void commit()}
      onEnterPress={(event) => (event.target as HTMLInputElement).blur()}
      data-testid={testId}
    />
  );
}
