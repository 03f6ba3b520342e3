import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { sanitizeHtml, useStatus } from '@console/kit';

/** The admin's footer HTML, sanitised to inert markup (threat X1); otherwise one default line. */
export function Footer() {
  const { t } = useTranslation('shell');
  const { footer_html: footerHtml, system_name: systemName, version } = useStatus();
  const safeHtml = useMemo(() => (footerHtml ? sanitizeHtml(footerHtml) : ''), [footerHtml]);
  return (
    <div style={{ textAlign: 'center', padding: '12px 16px', fontSize: 12, color: 'var(--semi-color-text-2)' }} data-testid="footer">
      {safeHtml ? (
        <div dangerouslySetInnerHTML={{ __html: safeHtml }} />
      ) : (
        t('footer.default', { name: systemName || t('defaultSystemName'), version: version ?? '' })
      )}
    </div>
  );
}
