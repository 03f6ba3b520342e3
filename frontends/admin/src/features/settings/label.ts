import type { TFunction } from 'i18next';

/** An option's label: `settings.label.<key>` with dots as underscores (i18next reads dots as nesting). */
export const optionLabel = (t: TFunction<'admin'>, key: string) => t(`settings.label.${key.replace(/\./g, '_')}`, { defaultValue: key });
