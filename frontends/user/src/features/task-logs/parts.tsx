import type { TFunction } from 'i18next';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Modal, Tag, Typography, type TagColor } from '@console/kit';
import type { ColumnProps } from '@console/kit/data';
import { TASK_LOG_NS } from './i18n';

/** The failure-reason column of both logs: a short link that opens the whole text in a dialog. */
export function failReasonColumn<Row extends { fail_reason: string }>(t: TFunction, showFailReason: (text: string) => void) {
  return {
    title: t('columns.failReason'),
    dataIndex: 'fail_reason',
    render: (v: string) =>
      v ? (
        <Typography.Text
          data-testid="fail-reason"
          link
          ellipsis={{ showTooltip: false }}
          style={{ maxWidth: 200 }}
          onClick={() => showFailReason(v)}
        >
          {v}
        </Typography.Text>
      ) : (
        t('none')
      ),
  } satisfies ColumnProps<Row>;
}

/** Seconds between submit and finish, green up to 60 s and red above; '-' when either is missing. */
export function TimeSpent({ start, end }: { start: number; end: number }) {
  const { t } = useTranslation(TASK_LOG_NS);
  if (!start || !end || end < start) return <span>-</span>;
  const seconds = Math.round(end - start);
  return <Tag color={seconds <= 60 ? 'green' : 'red'}>{t('seconds', { n: seconds })}</Tag>;
}

/** A ring for a numeric percentage ("45%"), else the raw text. */
export function ProgressRing({ value }: { value: string | null | undefined }) {
  const match = /^(\d{1,3})(?:\.\d+)?%$/.exec((value ?? '').trim());
  if (!match) return <span>{value || '-'}</span>;
  const percent = Math.min(100, Number(match[1]));
  const radius = 14;
  const circumference = 2 * Math.PI * radius;
  return (
    <span data-testid="progress-ring" title={`${percent}%`} style={{ display: 'inline-flex', alignItems: 'center', gap: 6 }}>
      <svg width="36" height="36" viewBox="0 0 36 36" role="img" aria-label={`${percent}%`}>
        <circle cx="18" cy="18" r={radius} fill="none" stroke="var(--semi-color-fill-1)" strokeWidth="4" />
        <circle
          cx="18"
          cy="18"
          r={radius}
          fill="none"
          strokeWidth="4"
          stroke={percent === 100 ? 'var(--semi-color-success)' : 'var(--semi-color-primary)'}
          strokeDasharray={`${(percent / 100) * circumference} ${circumference}`}
          transform="rotate(-90 18 18)"
        />
      </svg>
      <span>{percent}%</span>
    </span>
  );
}

const STATUS_COLOR: Record<string, TagColor> = {
  SUCCESS: 'green',
  NOT_START: 'grey',
  SUBMITTED: 'yellow',
  QUEUED: 'yellow',
  IN_PROGRESS: 'blue',
  FAILURE: 'red',
  MODAL: 'orange',
  UNKNOWN: 'white',
};

/** A task status as a coloured tag; empty means still being submitted. */
export function StatusTag({ status }: { status: string }) {
  const { t } = useTranslation(TASK_LOG_NS);
  if (!status) return <Tag color="white">{t('status.submitting')}</Tag>;
  return <Tag color={STATUS_COLOR[status] ?? 'white'}>{t(`status.${status}`, { defaultValue: t('status.other') })}</Tag>;
}

/** A colour per channel id, so rows of one channel read alike. */
export function channelColor(id: number): TagColor {
  const colors: TagColor[] = [
    'amber',
    'blue',
    'cyan',
    'green',
    'indigo',
    'light-blue',
    'lime',
    'orange',
    'pink',
    'purple',
    'red',
    'teal',
    'violet',
    'yellow',
  ];
  return colors[Math.abs(id) % colors.length]!;
}

/** A read-only text dialog (failure reason, JSON detail). */
export function TextDialog({ title, text, onClose, testId }: { title: ReactNode; text: string | null; onClose(): void; testId: string }) {
  return (
    <Modal title={title} visible={text !== null} onCancel={onClose} footer={null} width={720}>
      <Typography.Paragraph
        data-testid={testId}
        style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', fontFamily: 'monospace', maxHeight: 480, overflow: 'auto' }}
      >
        {text}
      </Typography.Paragraph>
    </Modal>
  );
}
