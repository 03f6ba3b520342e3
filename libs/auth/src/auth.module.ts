import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OptionModule } from '@gw/option';
import { UserDetailController, UserModule } from '@gw/user';
import { LocalLoginStrategy, PasswordLoginGuard } from './login/local.strategy.js';
import { LoginController } from './login/login.controller.js';
import { LoginLimiter } from './login/login-limiter.js';
import { LoginService } from './login/login.service.js';
import { OAuthController } from './oauth/oauth.controller.js';
import { OAuthService } from './oauth/oauth.service.js';
import { AuthorizeLinkService } from './oauth/authorize-link.service.js';
import { OAuthStateStore } from './oauth/oauth-state.js';
import { ProviderHttp } from './oauth/provider-http.js';
import { ThirdPartyLoginGuard } from './oauth/third-party.guard.js';
import { CodeCallback } from './oauth/strategies/code-callback.js';
import { CustomOAuthStrategy } from './oauth/strategies/custom-oauth.strategy.js';
import { DiscordStrategy } from './oauth/strategies/discord.strategy.js';
import { GitHubStrategy } from './oauth/strategies/github.strategy.js';
import { LinuxDoStrategy } from './oauth/strategies/linuxdo.strategy.js';
import { OidcClients } from './oauth/strategies/oidc-client.js';
import { OidcStrategy } from './oauth/strategies/oidc.strategy.js';
import { TelegramStrategy } from './oauth/strategies/telegram.strategy.js';
import { WeChatStrategy } from './oauth/strategies/wechat.strategy.js';
import { AuthGuard } from './session/auth.guard.js';
import { SessionEntity } from './session/session.entity.js';
import { SessionRepository } from './session/session.repository.js';
import { SessionService } from './session/session.service.js';
import { SetupController } from './setup/setup.controller.js';
import { SetupService } from './setup/setup.service.js';
import { PendingLogins } from './login/pending-login.js';
import { PasskeyController } from './passkey/passkey.controller.js';
import { PasskeyCredentialEntity } from './passkey/passkey.entity.js';
import { PasskeyRepository } from './passkey/passkey.repository.js';
import { PasskeyService } from './passkey/passkey.service.js';
import { SecureVerificationController } from './verify/secure-verification.controller.js';
import { SecureVerificationService } from './verify/secure-verification.service.js';
import { AccountAdminController } from './account-admin/account-admin.controller.js';
import { AccountAdminService } from './account-admin/account-admin.service.js';
import { CustomOAuthAdminService } from './custom-oauth/custom-oauth-admin.service.js';
import { CustomOAuthLoginService } from './custom-oauth/custom-oauth-login.service.js';
import { CustomOAuthLoginController, CustomOAuthProviderController } from './custom-oauth/custom-oauth.controller.js';
import { CustomOAuthProviderEntity, UserOAuthBindingEntity } from './custom-oauth/custom-oauth.entity.js';
import { CustomOAuthRepository } from './custom-oauth/custom-oauth.repository.js';
import { CheckinController } from './checkin/checkin.controller.js';
import { CheckinEntity } from './checkin/checkin.entity.js';
import { CheckinService } from './checkin/checkin.service.js';
import { TwoFactorController } from './two-factor/two-factor.controller.js';
import { TwoFaBackupCodeEntity, TwoFaEntity } from './two-factor/two-factor.entity.js';
import { TwoFactorRepository } from './two-factor/two-factor.repository.js';
import { TwoFactorService } from './two-factor/two-factor.service.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([
      SessionEntity,
      TwoFaEntity,
      TwoFaBackupCodeEntity,
      CheckinEntity,
      PasskeyCredentialEntity,
      CustomOAuthProviderEntity,
      UserOAuthBindingEntity,
    ]),
    UserModule,
    OptionModule,
  ],
  // UserDetailController (GET /api/user/:id) goes last, after the literal /api/user/* routes.
  controllers: [
    LoginController,
    SetupController,
    OAuthController,
    TwoFactorController,
    CheckinController,
    PasskeyController,
    SecureVerificationController,
    CustomOAuthProviderController,
    CustomOAuthLoginController,
    AccountAdminController,
    UserDetailController,
  ],
  providers: [
    SessionRepository,
    SessionService,
    LoginService,
    LoginLimiter,
    LocalLoginStrategy,
    PasswordLoginGuard,
    OAuthService,
    OAuthStateStore,
    ProviderHttp,
    CodeCallback,
    OidcClients,
    AuthorizeLinkService,
    GitHubStrategy,
    OidcStrategy,
    LinuxDoStrategy,
    DiscordStrategy,
    WeChatStrategy,
    TelegramStrategy,
    CustomOAuthStrategy,
    ThirdPartyLoginGuard,
    SetupService,
    PendingLogins,
    TwoFactorRepository,
    TwoFactorService,
    CheckinService,
    PasskeyRepository,
    PasskeyService,
    SecureVerificationService,
    CustomOAuthRepository,
    CustomOAuthAdminService,
    CustomOAuthLoginService,
    AccountAdminService,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [SessionService, TwoFactorService, SecureVerificationService],
})
export class AuthModule {}
