import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, FormRow, Input, Space, Toast } from '@console/kit';
import { describePull, ollamaApi } from '../ollama-api';

/** Pull and delete models on the Ollama server of a saved channel (new-api's channel page panel). */
export function OllamaModels({ channelId }: { channelId: number }) {
  const { t } = useTranslation('admin');
  const [version, setVersion] = useState('');
  const [model, setModel] = useState('');
  const [progress, setProgress] = useState('');
  const [busy, setBusy] = useState(false);
  const abort = useRef<AbortController | null>(null);

  useEffect(() => {
    ollamaApi.version(channelId).then(
      (answer) => setVersion(answer.version),
      () => setVersion(''),
    );
    return () => abort.current?.abort();
  }, [channelId]);

  const pull = async () => {
    if (!model.trim()) return Toast.error(t('channels.ollama.nameRequired'));
    abort.current = new AbortController();
    setBusy(true);
    try {
      Toast.success(await ollamaApi.pull(channelId, model.trim(), (event) => setProgress(describePull(event)), abort.current.signal));
    } catch (error) {
      if ((error as Error).name !== 'AbortError') Toast.error((error as Error).message);
    } finally {
      setBusy(false);
      setProgress('');
    }
  };

  const remove = async () => {
    if (!model.trim()) return Toast.error(t('channels.ollama.nameRequired'));
    setBusy(true);
    try {
      await ollamaApi.remove(channelId, model.trim());
      Toast.success(t('channels.ollama.deleted', { model: model.trim() }));
    } catch {
      // the client already showed the error
    } finally {
      setBusy(false);
    }
  };

  return (
    <FormRow
      label={t('channels.ollama.title')}
      hint={version ? t('channels.ollama.version', { version }) : t('channels.ollama.unreachable')}
    >
      <Space wrap data-testid="ollama-models">
        <Input
          value={model}
          onChange={setModel}
          placeholder={t('channels.ollama.placeholder')}
          disabled={busy}
          data-testid="ollama-model-name"
        />
        <Button loading={busy} onClick={() => void pull()} data-testid="ollama-pull">
          {t('channels.ollama.pull')}
        </Button>
        <Button type="danger" disabled={busy} onClick={() => void remove()} data-testid="ollama-delete">
          {t('channels.ollama.delete')}
        </Button>
        {progress && <span data-testid="ollama-progress">{progress}</span>}
      </Space>
    </FormRow>
  );
}
