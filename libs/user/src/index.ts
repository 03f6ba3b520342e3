import { AddNewApiUserColumns1732262401100 } from './migrations/1732262401100-add-new-api-user-columns.js';
import { CreateUsers1732262401000 } from './migrations/1732262401000-create-users.js';
import { UserEntity } from './user.entity.js';

export { UserModule } from './user.module.js';
export { UserService, type NewUser } from './user.service.js';
export { UserEntity, UserStatus } from './user.entity.js';
export { PasswordHasher, verifyPassword } from './password.js';
export { toSelfView, toAdminView, type SelfView } from './user.view.js';
export { UserDetailController } from './user-admin.controller.js';
export { UserAdminService } from './user-admin.service.js';
export { UserHooks, type UserAuditEntry } from './user-events.js';
// Balance movements: credits to wallets here, user+token charges in @gw/token; every write announces itself.
export { BalanceEvents, type BalanceChanged } from './balance/balance-events.js';
export { UserBalance, type UserBalanceMoves } from './balance/user-balance.service.js';
export { UserNotifyService, type UserNotice } from './user-notify.service.js';
export { AccountService, sameSecret } from './account.service.js';
export { MailService } from './mail.service.js';
export { TurnstileService } from './turnstile.service.js';
export { KvStore } from './support/kv-store.js';
export { randomAlnum, newAccessToken } from './support/random.js';
export type { BindingField } from './user.repository.js';
export { AUTO_GROUP, AUTO_GROUP_RATIO_LABEL, autoGroupsOf, groupInfos, usableGroups, type GroupInfo } from './groups.js';

export const userSchema = {
  entities: [UserEntity],
  migrations: [CreateUsers1732262401000, AddNewApiUserColumns1732262401100],
};
