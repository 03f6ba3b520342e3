import type { TFunction } from 'i18next';
import { Popover, Typography } from '@console/kit';
import type { LogRow } from './api';
import { AffinityUsageButton } from './AffinityUsage';
import { detailLines } from './log-details';
import type { LogOther } from './log-other';

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
  const affinity = other.admin_info?.channel_affinity;
  const summary = (
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
  if (!affinity?.rule_name || !affinity.key_fp) return summary;
  return (
    <>
      {summary}
      <AffinityUsageButton info={affinity} t={t} />
    </>
  );
}
