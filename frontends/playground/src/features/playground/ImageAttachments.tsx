import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { IconClose, IconUpload } from '@douyinfe/semi-icons';
import { Button, Input, Space, Toast } from '@console/kit';

/** Inline images travel in the request body; past this size the relay's body limit is the likelier failure. */
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

interface ImageAttachmentsProps {
  images: string[];
  onChange(images: string[]): void;
}

/** Images for a vision model: a web address, or a local file sent inline as a data: URL. */
export function ImageAttachments({ images, onChange }: ImageAttachmentsProps) {
  const { t } = useTranslation('playground');
  const [url, setUrl] = useState('');
  const fileInput = useRef<HTMLInputElement>(null);

  const addUrl = () => {
    const value = url.trim();
    if (!/^https?:\/\/\S+$/i.test(value)) {
      Toast.warning(t('image.invalidUrl'));
      return;
    }
    if (!images.includes(value)) onChange([...images, value]);
    setUrl('');
  };

  const addFiles = async (files: FileList | null) => {
    const added: string[] = [];
    for (const file of Array.from(files ?? [])) {
      if (!file.type.startsWith('image/')) Toast.warning(t('image.notImage', { name: file.name }));
      else if (file.size > MAX_IMAGE_BYTES) Toast.warning(t('image.tooLarge', { name: file.name }));
      else added.push(await readAsDataUrl(file));
    }
    if (added.length) onChange([...images, ...added]);
    if (fileInput.current) fileInput.current.value = '';
  };

  return (
    <div data-testid="image-attachments" style={{ marginBottom: 8 }}>
      <Space style={{ width: '100%' }}>
        <Input
          value={url}
          onChange={setUrl}
          onEnterPress={addUrl}
          placeholder={t('image.urlPlaceholder')}
          style={{ flex: 1 }}
          data-testid="image-url"
        />
        <Button onClick={addUrl} data-testid="image-add">
          {t('image.add')}
        </Button>
        <Button icon={<IconUpload />} onClick={() => fileInput.current?.click()} aria-label={t('image.upload')} />
        <input ref={fileInput} type="file" accept="image/*" multiple hidden onChange={(event) => void addFiles(event.target.files)} />
      </Space>
      {images.length > 0 && (
        <div style={{ display: 'flex', flexWrap: 'wrap', gap: 6, marginTop: 6 }}>
          {images.map((image) => (
            <div key={image} style={{ position: 'relative' }}>
              <img src={image} alt="" referrerPolicy="no-referrer" style={{ width: 64, height: 64, objectFit: 'cover', borderRadius: 6 }} />
              <Button
                size="small"
                icon={<IconClose />}
                aria-label={t('image.remove')}
                onClick={() => onChange(images.filter((other) => other !== image))}
                style={{ position: 'absolute', top: -6, right: -6, borderRadius: '50%' }}
              />
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
