/** iFlytek's public Spark host, used when the channel leaves base_url empty. */
export const SPARK_HOST = 'wss://spark-api.xf-yun.com';
export const DEFAULT_SPARK_VERSION = 'v2.1';

/** Spark API version → model domain (iFlytek's Spark WebSocket reference, as new-api maps them). */
const DOMAINS: Record<string, string> = {
  'v1.1': 'lite',
  'v2.1': 'generalv2',
  'v3.1': 'generalv3',
  'v3.5': 'generalv3.5',
  'v4.0': '4.0Ultra',
  'pro-128k': 'pro-128k',
  'max-32k': 'max-32k',
};

const VERSION = /^(v\d+\.\d+|pro-128k|max-32k)$/;

/** The API version of a call: the model's own (`SparkDesk-v3.5`), else the channel's `other`, else v2.1. */
export function sparkVersion(model: string, other: string | undefined): string {
  const fromModel = /^SparkDesk-(v\d+\.\d+)$/.exec(model)?.[1];
  if (fromModel) return fromModel;
  const configured = other?.trim();
  return configured && VERSION.test(configured) ? configured : DEFAULT_SPARK_VERSION;
}

export function sparkDomain(version: string): string {
  return DOMAINS[version] ?? `general${version}`;
}

/** `/v3.5/chat`, or `/chat/pro-128k` for the named models. */
export function sparkPath(version: string): string {
  return version.startsWith('v') ? `/${version}/chat` : `/chat/${version}`;
}
