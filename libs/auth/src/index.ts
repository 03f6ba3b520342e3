import { CreateSessions1732262402000 } from './migrations/1732262402000-create-sessions.js';
import { CreateTwoFas1732262402100 } from './migrations/1732262402100-create-two-fas.js';
import { CreateCheckins1732262402200 } from './migrations/1732262402200-create-checkins.js';
import { CheckinEntity } from './checkin/checkin.entity.js';
import { CreatePasskeyCredentials1732262402300 } from './migrations/1732262402300-create-passkey-credentials.js';
import { PasskeyCredentialEntity } from './passkey/passkey.entity.js';
import { CreateCustomOAuth1732262402400 } from './migrations/1732262402400-create-custom-oauth.js';
import { AddCustomOAuthPkce1732262416000 } from './migrations/1732262416000-add-custom-oauth-pkce.js';
import { CustomOAuthProviderEntity, UserOAuthBindingEntity } from './custom-oauth/custom-oauth.entity.js';
import { SessionEntity } from './session/session.entity.js';
import { TwoFaBackupCodeEntity, TwoFaEntity } from './two-factor/two-factor.entity.js';

export { AuthModule } from './auth.module.js';
export { SessionService, type Identity } from './session/session.service.js';

export const authSchema = {
  entities: [
    SessionEntity,
    TwoFaEntity,
    TwoFaBackupCodeEntity,
    CheckinEntity,
    PasskeyCredentialEntity,
    CustomOAuthProviderEntity,
    UserOAuthBindingEntity,
  ],
  migrations: [
    CreateSessions1732262402000,
    CreateTwoFas1732262402100,
    CreateCheckins1732262402200,
    CreatePasskeyCredentials1732262402300,
    CreateCustomOAuth1732262402400,
    AddCustomOAuthPkce1732262416000,
  ],
};
export { verifyTelegram, telegramHash } from './oauth/telegram.js';
export { TOO_MANY_FAILURES, LOGIN_LIMITS } from './login/login-limiter.js';
export { TwoFactorService } from './two-factor/two-factor.service.js';
export { SecureVerificationService } from './verify/secure-verification.service.js';
