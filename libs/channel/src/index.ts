import { AbilityEntity } from './ability.entity.js';
import { ChannelEntity } from './channel.entity.js';
import { CreateChannels1732262403000 } from './migrations/1732262403000-create-channels.js';
import { CreateAbilities1732262403100 } from './migrations/1732262403100-create-abilities.js';
import { AddNewApiChannelColumns1732262403300 } from './migrations/1732262403300-add-new-api-channel-columns.js';
import { AddChannelBaseUrlPublic1732262403400 } from './migrations/1732262403400-add-channel-base-url-public.js';

export { ChannelModule } from './channel.module.js';
export { ChannelRouter, buildRoutingTable, pickFromTiers, weightedPick } from './channel-router.js';
export { ChannelUsageService } from './channel-usage.service.js';
export { ChannelHealthService, statusMatcher, keywordMatcher, type RelayFailure } from './channel-health.service.js';
export { ChannelStatus } from './channel.entity.js';
export type { RelayChannel } from './relay-channel.js';
export { ChannelKeyService, type KeyChoice } from './channel-key.service.js';
export { parseChannelInfo, splitKeys, KeyStatus, type ChannelInfo, type MultiKeyMode } from './multi-key.js';

export const channelSchema = {
  entities: [ChannelEntity, AbilityEntity],
  migrations: [
    CreateChannels1732262403000,
    CreateAbilities1732262403100,
    AddNewApiChannelColumns1732262403300,
    AddChannelBaseUrlPublic1732262403400,
  ],
};
export { ChannelMonitorService, type CycleSummary } from './channel-monitor.service.js';
export { ChannelTestService, isEmbeddingModel, mapModel, type ChannelTestResult } from './channel-test.service.js';
export type { AdaptorProbe, ProbeAnswer, ProbeLimits, TestOverride, TestRequest } from './channel-probe.js';
export { ChannelNotifyService, type ChannelNotice } from './channel-notify.service.js';
export { redactKeys } from './redact.js';
export { KeyRedactor, KeyRedactingStream } from './key-redactor.js';
export { channelRedactingTransform, channelRedactor, redactChannelKeys, redactChannelText } from './channel-redaction.js';
