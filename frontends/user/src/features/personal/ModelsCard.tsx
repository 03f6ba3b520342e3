import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Card, Empty, Space, Tag, copyText } from '@console/kit';
import { personalApi } from './api';

const COLLAPSED_COUNT = 10;

/** The models the user's groups may call; ten before "show all", a click copies a name. */
export function ModelsCard() {
  const { t } = useTranslation('user');
  const [models, setModels] = useState<string[] | null>(null);
  const [expanded, setExpanded] = useState(false);
  useEffect(() => {
    personalApi.models().then(setModels, () => setModels([]));
  }, []);
  const shown = expanded ? (models ?? []) : (models ?? []).slice(0, COLLAPSED_COUNT);
  const hidden = (models?.length ?? 0) - COLLAPSED_COUNT;

  return (
    <Card title={t('personal.models.title')} style={{ marginBottom: 16 }} loading={models === null}>
      {models?.length === 0 ? (
        <Empty description={t('personal.models.none')} />
      ) : (
        <div data-testid="personal-models">
          <Space wrap>
            {shown.map((model) => (
              <Tag
                key={model}
                color="white"
                style={{ cursor: 'pointer' }}
                onClick={() => void copyText(model, t('personal.models.copied', { model }))}
              >
                {model}
              </Tag>
            ))}
            {hidden > 0 && (
              <Button size="small" theme="borderless" onClick={() => setExpanded(!expanded)} data-testid="personal-models-toggle">
                {expanded ? t('personal.models.collapse') : t('personal.models.expand', { count: hidden })}
              </Button>
            )}
          </Space>
        </div>
      )}
    </Card>
  );
}
