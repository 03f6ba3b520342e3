import type { RelayChannel } from '@gw/channel';
import type { NewLog } from '@gw/log';
import type { RelayCaller } from '../pipeline/ports.js';
import type { RelayRequest } from '../pipeline/relay-request.js';

/** What every log row of a relayed request says about who asked, what for and where it went. */
export interface RelayRowSource {
  caller: RelayCaller;
  request: Pick<RelayRequest, 'model' | 'stream'>;
  channel: RelayChannel;
  group: string;
  requestId: string;
  ip: string;
  useTimeMs: number;
}

/** The fields a consume row and an error row share (the IP only when the user chose to record it). */
export function relayLogRow(source: RelayRowSource) {
  const { caller, request, channel } = source;
  return {
    userId: caller.userId,
    username: caller.username,
    tokenName: caller.tokenName,
    tokenId: caller.tokenId,
    modelName: request.model,
    useTime: Math.floor(source.useTimeMs / 1000),
    isStream: request.stream,
    channelId: channel.id,
    channelName: channel.name,
    group: source.group,
    ip: caller.recordIp ? source.ip : '',
    requestId: source.requestId,
  } satisfies Partial<NewLog>;
}
