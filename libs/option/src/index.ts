import { CreateOptions1732262400000 } from './migrations/1732262400000-create-options.js';
import { CreateSetups1732262400100 } from './migrations/1732262400100-create-setups.js';
import { OptionEntity } from './option.entity.js';
import { SetupEntity } from './setup.entity.js';

export { OptionModule } from './option.module.js';
export { OptionService, type OptionItem } from './option.service.js';
export { SetupStateService } from './setup-state.service.js';
export { StatusService } from './status.service.js';
export {
  AFFINITY_CONTEXT_KEYS,
  type AffinityKeySource,
  type AffinityRule,
} from './registry/channel-affinity-rules.js';
export { OPTION_REGISTRY, RATIO_KEYS, isOptionKey, type OptionKey, type OptionValues } from './registry/option-registry.js';

export const optionSchema = {
  entities: [OptionEntity, SetupEntity],
  migrations: [CreateOptions1732262400000, CreateSetups1732262400100],
};
