/** new-api's log types (model/log.go); 0 means "all" in list filters. */
export enum LogType {
  Unknown = 0,
  TopUp = 1,
  Consume = 2,
  Manage = 3,
  System = 4,
  Error = 5,
}

/** One row to write into `logs`; only userId, username and type are required. */
export interface NewLog {
  userId: number;
  username: string;
  type: LogType;
  content?: string;
  tokenName?: string;
  tokenId?: number;
  modelName?: string;
  quota?: number;
  promptTokens?: number;
  completionTokens?: number;
  /** Seconds. */
  useTime?: number;
  isStream?: boolean;
  channelId?: number;
  /**
   * Not stored: like new-api, `logs` has no channel_name column (an existing new-api database must
   * stay readable); the read API resolves the name from channel_id. Accepted so callers may pass it.
   */
  channelName?: string;
  group?: string;
  ip?: string;
  requestId?: string;
  /** Serialised as JSON into the `other` text column. */
  other?: Record<string, unknown>;
  /** Unix seconds; defaults to now. */
  createdAt?: number;
}
