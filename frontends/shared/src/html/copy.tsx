import { i18n } from '../i18n/setup';
import { Modal, Toast, Typography } from '../ui/semi';

async function writeClipboard(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** Copies, or shows the text in a dialog so the user can copy it by hand (spec: copy failure dialog). */
export async function copyText(text: string, successMessage?: string): Promise<boolean> {
  if (await writeClipboard(text)) {
    Toast.success(successMessage ?? i18n.t('kit:copy.done'));
    return true;
  }
  Modal.info({
    title: i18n.t('kit:copy.failedTitle'),
    content: (
      <Typography.Paragraph copyable style={{ wordBreak: 'break-all' }}>
        {text}
      </Typography.Paragraph>
    ),
    hasCancel: false,
    // Imperative dialogs render outside the console's LocaleProvider, so their button text is set here.
    okText: i18n.t('kit:action.ok'),
  });
  return false;
}
