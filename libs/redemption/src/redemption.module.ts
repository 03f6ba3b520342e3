import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LogModule } from '@gw/log';
import { OptionModule } from '@gw/option';
import { UserModule } from '@gw/user';
import { EpayNotifyController } from './epay/epay-notify.controller.js';
import { EpayNotifyService } from './epay/epay-notify.service.js';
import { EpayOrderService } from './epay/epay-order.service.js';
import { RedeemService } from './redeem.service.js';
import { RedemptionController } from './redemption.controller.js';
import { RedemptionEntity } from './redemption.entity.js';
import { RedemptionRepository } from './redemption.repository.js';
import { RedemptionService } from './redemption.service.js';
import { TopUpEntity } from './top-up.entity.js';
import { TopUpRepository, WalletRepository } from './top-up.repository.js';
import { WalletController } from './wallet.controller.js';

@Module({
  imports: [TypeOrmModule.forFeature([RedemptionEntity, TopUpEntity]), OptionModule, UserModule, LogModule],
  controllers: [RedemptionController, WalletController, EpayNotifyController],
  providers: [
    RedemptionRepository,
    TopUpRepository,
    WalletRepository,
    RedemptionService,
    RedeemService,
    EpayOrderService,
    EpayNotifyService,
  ],
})
export class RedemptionModule {}
