import { OPTION_REGISTRY, type OptionKey, type OptionService } from '@gw/option';

/** An OptionService reading the given values, else each key's registry default (for unit tests). */
export function optionsStub(values: Partial<Record<OptionKey, unknown>> = {}): OptionService {
  return {
    get(key: OptionKey) {
      if (key in values) return values[key];
      const def = OPTION_REGISTRY[key];
      if (def.kind === 'json') return JSON.parse(def.default);
      if (def.kind === 'int' || def.kind === 'float') return Number(def.default);
      if (def.kind === 'bool') return def.default === 'true';
      return def.default;
    },
  } as unknown as OptionService;
}
