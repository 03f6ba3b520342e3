import { CreateRedemptions1732262406000 } from './migrations/1732262406000-create-redemptions.js';
import { CreateTopUps1732262406010 } from './migrations/1732262406010-create-top-ups.js';
import { RedemptionEntity } from './redemption.entity.js';
import { TopUpEntity } from './top-up.entity.js';

export { RedemptionModule } from './redemption.module.js';
export { RedemptionStatus } from './redemption.entity.js';
export { TopUpStatus } from './top-up.entity.js';

export const redemptionSchema = {
  entities: [RedemptionEntity, TopUpEntity],
  migrations: [CreateRedemptions1732262406000, CreateTopUps1732262406010],
};
