// Request and response shapes shared with the gateway (libs/contracts). Types are erased at build time;
// the channel type table is plain data, the same list the gateway validates against.
export type { ChannelPage, ChannelTestResult, ChannelView } from '../../../libs/contracts/src/channel-view.contract.ts';
export type {
  CreateRedemptionRequest,
  RedemptionStatusRequest,
  RedemptionView,
  UpdateRedemptionRequest,
} from '../../../libs/contracts/src/redemption.contract.ts';
export type { UpdateOptionRequest } from '../../../libs/contracts/src/option.contract.ts';
export type { ReleaseCheckView } from '../../../libs/contracts/src/release.contract.ts';
export { CHANNEL_TYPES, channelTypeInfo, type ChannelTypeInfo } from '../../../libs/contracts/src/channel-types.ts';
export type { AdminUserView, CreateUserRequest, ManageUserRequest, UpdateUserRequest } from '../../../libs/contracts/src/user.contract.ts';
export type { AffinityCacheStats } from '../../../libs/contracts/src/channel-affinity.contract.ts';
export { goRegExp } from '../../../libs/contracts/src/go-regexp.ts';
export {
  AFFINITY_CONTEXT_KEYS,
  AFFINITY_KEY_SOURCE_TYPES,
  type AffinityKeySourceType,
  type AffinityRule,
} from '../../../libs/contracts/src/channel-affinity-rule.ts';
