import { BalanceEvents } from './balance/balance-events.js';
import { UserBalance } from './balance/user-balance.service.js';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OptionModule } from '@gw/option';
import { AccountController } from './account.controller.js';
import { AccountService } from './account.service.js';
import { MailService } from './mail.service.js';
import { KvStore } from './support/kv-store.js';
import { TurnstileService } from './turnstile.service.js';
import { GroupController, UserAdminController } from './user-admin.controller.js';
import { UserAdminService } from './user-admin.service.js';
import { UserHooks } from './user-events.js';
import { UserNotifyService } from './user-notify.service.js';
import { UserSelfController } from './user-self.controller.js';
import { UserSelfService } from './user-self.service.js';
import { UserEntity } from './user.entity.js';
import { UserRepository } from './user.repository.js';
import { UserService } from './user.service.js';
import { MailTestController } from './mail-test.controller.js';
import { PasswordHasher } from './password.js';

@Module({
  imports: [TypeOrmModule.forFeature([UserEntity]), OptionModule],
  controllers: [UserSelfController, UserAdminController, GroupController, AccountController, MailTestController],
  providers: [
    UserRepository,
    PasswordHasher,
    UserService,
    UserAdminService,
    UserSelfService,
    AccountService,
    MailService,
    TurnstileService,
    KvStore,
    UserHooks,
    UserNotifyService,
    BalanceEvents,
    UserBalance,
  ],
  exports: [
    PasswordHasher,
    BalanceEvents,
    UserBalance,
    UserService,
    UserAdminService,
    UserHooks,
    UserNotifyService,
    AccountService,
    MailService,
    TurnstileService,
    KvStore,
  ],
})
export class UserModule {}
