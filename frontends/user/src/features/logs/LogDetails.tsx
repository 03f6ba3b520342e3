import type { TFunction } from 'i18next';
import { Popover, Typography } from '@console/kit';
import type { LogRow } from './api';
import { effectiveGroupRatio, isPerCallPrice, type LogOther } from './log-other';

const num = (value: number | undefined, digits = 4) => (typeof value === 'number' ? String(Number(value.toFixed(digits))) : '-');

/** The billing lines of a row, from the ratios the relay recorded in `other`. */
export function detailLines(row: LogRow, other: LogOther, t: TFunction<'user'>): string[] {
  const lines: string[] = [];
  const groupRatio = effectiveGroupRatio(other);
  if (isPerCallPrice(other)) {
    lines.push(t('logs.details.perCall', { price: num(other.model_price), group: num(groupRatio) }));
  } else if (other.model_ratio !== undefined) {
    lines.push(t('logs.details.modelRatio', { value: num(other.model_ratio) }));
    lines.push(t('logs.details.completionRatio', { value: num(other.completion_ratio) }));
    lines.push(t('logs.details.groupRatio', { value: num(groupRatio) }));
    if (other.cache_tokens) lines.push(t('logs.details.cache', { tokens: other.cache_tokens, ratio: num(other.cache_ratio) }));
    if (other.cache_creation_tokens)
      lines.push(t('logs.details.cacheCreation', { tokens: other.cache_creation_tokens, ratio: num(other.cache_creation_ratio) }));
  }
  if (other.reasoning_effort) lines.push(t('logs.details.reasoning', { value: other.reasoning_effort }));
  if (other.admin_info?.local_count_tokens) lines.push(t('logs.details.localCount'));
  if (row.content) lines.push(row.content);
  return lines;
}

/** The details cell: a short summary, the full breakdown in a popover. */
export function LogDetailsCell({ row, other, t }: { row: LogRow; other: LogOther; t: TFunction<'user'> }) {
  const lines = detailLines(row, other, t);
  if (lines.length === 0) return <Typography.Text type="tertiary">-</Typography.Text>;
  const content = (
    <div style={{ padding: 12, maxWidth: 360 }} data-testid={`log-details-popover-${row.id}`}>
      {lines.map((line) => (
        <Typography.Paragraph key={line} style={{ margin: 0 }}>
          {line}
        </Typography.Paragraph>
      ))}
    </div>
  );
  return (
    <Popover content={content} trigger="hover" position="left">
      <span
        data-testid={`log-details-${row.id}`}
        style={{
          display: 'inline-block',
          maxWidth: 220,
          overflow: 'hidden',
          textOverflow: 'ellipsis',
          whiteSpace: 'nowrap',
          cursor: 'pointer',
        }}
      >
        {lines.join(' · ')}
      </span>
    </Popover>
  );
}
