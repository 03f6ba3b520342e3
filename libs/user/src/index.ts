import { CreateUsers1732262401000 } from './migrations/1732262401000-create-users.js';
import { UserEntity } from './user.entity.js';

export { UserModule } from './user.module.js';
export { UserService, type NewUser } from './user.service.js';
export { UserEntity, UserStatus } from './user.entity.js';
export { hashPassword, verifyPassword, DUMMY_HASH } from './password.js';
export { toSelfView, type SelfView } from './user.view.js';

export const userSchema = {
  entities: [UserEntity],
  migrations: [CreateUsers1732262401000],
};
