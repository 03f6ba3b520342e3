import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Modal, SandboxedHtml } from '@console/kit';
import { Section, TextAreaField, TextField } from '../fields';
import { optionLabel } from '../label';
import type { Settings } from '../useSettings';
import { VersionSection } from './VersionSection';

/** Renders admin-written content the way visitors will see it: a URL as a link, Markdown or HTML sandboxed. */
function PreviewButton({ text }: { text: string }) {
  const { t } = useTranslation('admin');
  const [html, setHtml] = useState<string | null>(null);
  const open = async () => {
    const value = text.trim();
    if (/^https?:\/\//i.test(value)) return setHtml(`<p><a href="${encodeURI(value)}">${encodeURI(value)}</a></p>`);
    // Markdown passes HTML through; the sandboxed frame keeps its scripts from running.
    const { marked } = await import('marked');
    setHtml(await marked.parse(value || ''));
  };
  return (
    <>
      <Button onClick={() => void open()}>{t('settings.preview')}</Button>
      <Modal title={t('settings.preview')} visible={html !== null} onCancel={() => setHtml(null)} footer={null} width={720}>
        {html !== null && <SandboxedHtml title={t('settings.preview')} html={html} style={{ minHeight: 320 }} />}
      </Modal>
    </>
  );
}

const CONTENT = ['Notice', 'About', 'HomePageContent', 'Footer'] as const;

/** ?tab=other: version and update check, site name and logo, notice, about and home page content, footer. */
export function OtherSections({ settings }: { settings: Settings }) {
  const { t } = useTranslation('admin');
  return (
    <>
      <VersionSection />
      <Section title={t('settings.section.site')} settings={settings} keys={['SystemName', 'Logo']} testId="section-site">
        <TextField settings={settings} name="SystemName" label={optionLabel(t, 'SystemName')} />
        <TextField settings={settings} name="Logo" label={optionLabel(t, 'Logo')} placeholder="https://…/logo.png" />
      </Section>
      {CONTENT.map((key) => (
        <Section
          key={key}
          title={optionLabel(t, key)}
          settings={settings}
          keys={[key]}
          extra={<PreviewButton text={settings.draft[key] ?? ''} />}
        >
          <TextAreaField settings={settings} name={key} label={optionLabel(t, key)} rows={6} hint={t(`settings.hint.${key}`)} />
        </Section>
      ))}
    </>
  );
}
