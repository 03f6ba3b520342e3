import { BalanceLedger } from './balance/balance-ledger.service.js';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OptionModule } from '@gw/option';
import { UserModule } from '@gw/user';
import { TokenAuthService } from './token-auth.service.js';
import { TokenBillingController } from './token-billing.controller.js';
import { TokenBillingService } from './token-billing.service.js';
import { TokenIndex } from './token-index.js';
import { TokenController } from './token.controller.js';
import { TokenEntity } from './token.entity.js';
import { TokenRepository } from './token.repository.js';
import { TokenService } from './token.service.js';
import { UserSnapshots } from './user-snapshots.js';

@Module({
  imports: [TypeOrmModule.forFeature([TokenEntity]), OptionModule, UserModule],
  controllers: [TokenController, TokenBillingController],
  providers: [TokenRepository, TokenIndex, UserSnapshots, TokenAuthService, TokenService, TokenBillingService, BalanceLedger],
  exports: [TokenAuthService, BalanceLedger],
})
export class TokenModule {}
