import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OptionModule } from '@gw/option';
import { UserModule } from '@gw/user';
import { LoginController } from './login/login.controller.js';
import { LoginService } from './login/login.service.js';
import { AuthGuard } from './session/auth.guard.js';
import { SessionEntity } from './session/session.entity.js';
import { SessionRepository } from './session/session.repository.js';
import { SessionService } from './session/session.service.js';
import { SetupController } from './setup/setup.controller.js';
import { SetupService } from './setup/setup.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([SessionEntity]), UserModule, OptionModule],
  controllers: [LoginController, SetupController],
  providers: [SessionRepository, SessionService, LoginService, SetupService, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [SessionService],
})
export class AuthModule {}
