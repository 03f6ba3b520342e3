import { Module } from '@nestjs/common';
import { ChannelModule } from '@gw/channel';
import { LogModule } from '@gw/log';
import { OptionModule } from '@gw/option';
import { TokenModule } from '@gw/token';
import { UpstreamModule } from '@gw/upstream';
import { UserModule } from '@gw/user';
import { AffinityStore } from './affinity/affinity-store.js';
import { ChannelAffinityController } from './affinity/channel-affinity.controller.js';
import { ChannelAffinity } from './affinity/channel-affinity.service.js';
import { QuotaLedger } from './billing/quota-ledger.js';
import { RelayCharges } from './billing/relay-charges.js';
import { ReserveOverlap } from './billing/reserve-overlap.js';
import { ReservationRecovery } from './billing/reservation-recovery.service.js';
import { ModelsController } from './http/models.controller.js';
import { TokenRelayAuthenticator } from './http/relay-auth.js';
import { PlaygroundController } from './http/playground.controller.js';
import { RelayEntry } from './http/relay-entry.js';
import { ChannelSelection } from './pipeline/channel-selection.js';
import { ModelList } from './pipeline/model-list.js';
import { RelayAuthenticator, RelayPricing, RelayRateLimiter } from './pipeline/ports.js';
import { RelayPipeline } from './pipeline/relay-pipeline.js';
import { RetryPolicy } from './pipeline/retry-policy.js';
import { UpstreamCall } from './pipeline/upstream-call.js';
import { FormatCall } from './pipeline/format-call.js';
import { RelayChannelProbe } from './pipeline/channel-probe.js';
import {
  PricingCatalog,
  PricingController,
  PricingService,
  RatioConfigController,
  RelayPricingAdapter,
  TokenCounter,
} from './pricing/index.js';
import { ModelRateLimiter } from './rate-limit/index.js';
import { RealtimeConnector } from './realtime/realtime-connector.js';
import { RealtimeRelay } from './realtime/realtime-relay.js';

/** The OpenAI-compatible relay: routes, channel selection, forwarding, billing and the consume log. */
@Module({
  imports: [OptionModule, ChannelModule, UpstreamModule, TokenModule, UserModule, LogModule],
  controllers: [PlaygroundController, ModelsController, PricingController, RatioConfigController, ChannelAffinityController],
  providers: [
    RelayEntry,
    TokenRelayAuthenticator,
    { provide: RelayAuthenticator, useExisting: TokenRelayAuthenticator },
    PricingService,
    PricingCatalog,
    TokenCounter,
    RelayPricingAdapter,
    ModelRateLimiter,
    { provide: RelayPricing, useExisting: RelayPricingAdapter },
    { provide: RelayRateLimiter, useExisting: ModelRateLimiter },
    QuotaLedger,
    RelayCharges,
    ReserveOverlap,
    ReservationRecovery,
    RetryPolicy,
    ChannelSelection,
    AffinityStore,
    ChannelAffinity,
    UpstreamCall,
    FormatCall,
    RelayChannelProbe,
    RelayPipeline,
    RealtimeConnector,
    RealtimeRelay,
    ModelList,
  ],
  exports: [QuotaLedger, ReservationRecovery, PricingService, ChannelSelection],
})
export class RelayModule {}
