import { useTranslation } from 'react-i18next';
import { IconHelpCircle } from '@douyinfe/semi-icons';
import { Popover, Typography } from '@console/kit';

const BOX_WIDTH = 92;
const COLUMNS = [4, 128, 244];

function Box({ x, y, label, strong }: { x: number; y: number; label: string; strong?: boolean }) {
  return (
    <g>
      <rect
        x={x}
        y={y}
        width={BOX_WIDTH}
        height={30}
        rx={6}
        style={{
          fill: strong ? 'var(--semi-color-success-light-default)' : 'var(--semi-color-primary-light-default)',
          stroke: 'var(--semi-color-border)',
        }}
      />
      <text x={x + BOX_WIDTH / 2} y={y + 19} textAnchor="middle" fontSize={10} style={{ fill: 'var(--semi-color-text-0)' }}>
        {label}
      </text>
    </g>
  );
}

function Row({
  y,
  left,
  operator,
  right,
  result,
  example,
}: {
  y: number;
  left: string;
  operator: string;
  right: string;
  result: string;
  example: string;
}) {
  const text = { fill: 'var(--semi-color-text-1)' };
  return (
    <g>
      <Box x={COLUMNS[0]} y={y} label={left} />
      <text x={(COLUMNS[0] + BOX_WIDTH + COLUMNS[1]) / 2} y={y + 19} textAnchor="middle" fontSize={11} style={text}>
        {operator}
      </text>
      <Box x={COLUMNS[1]} y={y} label={right} />
      <text x={(COLUMNS[1] + BOX_WIDTH + COLUMNS[2]) / 2} y={y + 19} textAnchor="middle" fontSize={13} style={text}>
        →
      </text>
      <Box x={COLUMNS[2]} y={y} label={result} strong />
      <text x={COLUMNS[0]} y={y + 46} fontSize={10} style={{ fill: 'var(--semi-color-text-2)' }}>
        {example}
      </text>
    </g>
  );
}

/**
 * The picture new-api shows next to the ratio column, drawn inline (no image download, follows dark mode):
 * how the model, group and completion ratios turn into the displayed prices, with a worked example.
 */
function RatioIllustration() {
  const { t } = useTranslation('shell');
  return (
    <svg viewBox="0 0 340 124" width={340} role="img" aria-label={t('pricing.ratioFigure.title')} data-testid="ratio-illustration">
      <Row
        y={4}
        left={t('pricing.ratioFigure.modelRatio')}
        operator="× 2 ×"
        right={t('pricing.ratioFigure.groupRatio')}
        result={t('pricing.ratioFigure.promptPrice')}
        example={t('pricing.ratioFigure.promptExample')}
      />
      <Row
        y={66}
        left={t('pricing.ratioFigure.promptPrice')}
        operator="×"
        right={t('pricing.ratioFigure.completionRatio')}
        result={t('pricing.ratioFigure.completionPrice')}
        example={t('pricing.ratioFigure.completionExample')}
      />
    </svg>
  );
}

/** The ratio column title: its help popup opens on click, so it also works on touch screens. */
export function RatioTitle() {
  const { t } = useTranslation('shell');
  const content = (
    <div style={{ padding: 12, maxWidth: 364 }} data-testid="ratio-help-popup">
      <Typography.Text strong>{t('pricing.ratioWhy')}</Typography.Text>
      <Typography.Paragraph size="small" style={{ margin: '6px 0 10px' }}>
        {t('pricing.ratioHelp')}
      </Typography.Paragraph>
      <RatioIllustration />
    </div>
  );
  return (
    <span style={{ display: 'inline-flex', alignItems: 'center', gap: 4 }}>
      {t('pricing.ratio')}
      <Popover content={content} trigger="click" position="bottom" showArrow>
        <button
          type="button"
          aria-label={t('pricing.ratioHelpLabel')}
          data-testid="ratio-help"
          style={{ display: 'inline-flex', cursor: 'pointer', border: 'none', background: 'none', padding: 0 }}
        >
          <IconHelpCircle style={{ color: 'var(--semi-color-text-2)' }} />
        </button>
      </Popover>
    </span>
  );
}
