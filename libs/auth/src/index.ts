import { CreateSessions1732262402000 } from './migrations/1732262402000-create-sessions.js';
import { SessionEntity } from './session/session.entity.js';

export { AuthModule } from './auth.module.js';
export { SessionService, type Identity } from './session/session.service.js';

export const authSchema = {
  entities: [SessionEntity],
  migrations: [CreateSessions1732262402000],
};
export { verifyTelegram, telegramHash } from './oauth/telegram.js';
export { TOO_MANY_FAILURES, LOGIN_LIMITS } from './login/login-limiter.js';
