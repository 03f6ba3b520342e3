/**
 * Claude model names → Bedrock model ids, as new-api maps them (relay/channel/aws/constants.go). A name not
 * listed is sent as it is, so an admin can use any Bedrock id (or an inference profile) through model mapping.
 */
const BEDROCK_MODEL_IDS: Readonly<Record<string, string>> = {
  'claude-3-sonnet-20240229': 'anthropic.claude-3-sonnet-20240229-v1:0',
  'claude-3-opus-20240229': 'anthropic.claude-3-opus-20240229-v1:0',
  'claude-3-haiku-20240307': 'anthropic.claude-3-haiku-20240307-v1:0',
  'claude-3-5-sonnet-20240620': 'anthropic.claude-3-5-sonnet-20240620-v1:0',
  'claude-3-5-sonnet-20241022': 'anthropic.claude-3-5-sonnet-20241022-v2:0',
  'claude-3-5-haiku-20241022': 'anthropic.claude-3-5-haiku-20241022-v1:0',
  'claude-3-7-sonnet-20250219': 'anthropic.claude-3-7-sonnet-20250219-v1:0',
  'claude-sonnet-4-20250514': 'anthropic.claude-sonnet-4-20250514-v1:0',
  'claude-opus-4-20250514': 'anthropic.claude-opus-4-20250514-v1:0',
  'claude-opus-4-1-20250805': 'anthropic.claude-opus-4-1-20250805-v1:0',
  'claude-sonnet-4-5-20250929': 'anthropic.claude-sonnet-4-5-20250929-v1:0',
  'claude-haiku-4-5-20251001': 'anthropic.claude-haiku-4-5-20251001-v1:0',
  'claude-opus-4-5-20251101': 'anthropic.claude-opus-4-5-20251101-v1:0',
};

const US = ['us'];
const US_EU_AP = ['us', 'eu', 'ap'];
const US_AP = ['us', 'ap'];

/**
 * Which geographies offer a cross-region inference profile for a model (new-api's table): a channel in such a
 * region calls `<geo>.<model id>`, the profile Bedrock requires for these models outside their home region.
 */
const CROSS_REGION: Readonly<Record<string, readonly string[]>> = {
  'anthropic.claude-3-sonnet-20240229-v1:0': US_EU_AP,
  'anthropic.claude-3-opus-20240229-v1:0': US,
  'anthropic.claude-3-haiku-20240307-v1:0': US_EU_AP,
  'anthropic.claude-3-5-sonnet-20240620-v1:0': US_EU_AP,
  'anthropic.claude-3-5-sonnet-20241022-v2:0': US_AP,
  'anthropic.claude-3-5-haiku-20241022-v1:0': US,
  'anthropic.claude-3-7-sonnet-20250219-v1:0': US_EU_AP,
  'anthropic.claude-sonnet-4-20250514-v1:0': US_EU_AP,
  'anthropic.claude-opus-4-20250514-v1:0': US,
  'anthropic.claude-opus-4-1-20250805-v1:0': US,
  'anthropic.claude-sonnet-4-5-20250929-v1:0': US_EU_AP,
  'anthropic.claude-haiku-4-5-20251001-v1:0': US_EU_AP,
  'anthropic.claude-opus-4-5-20251101-v1:0': US_EU_AP,
};

/** The geography prefix of an inference profile: `ap-*` regions use `apac.`. */
const PROFILE_PREFIX: Readonly<Record<string, string>> = { us: 'us', eu: 'eu', ap: 'apac' };

/** The model id a Bedrock channel in `region` calls for `model`. */
export function bedrockModelId(model: string, region: string): string {
  const id = BEDROCK_MODEL_IDS[model] ?? model;
  const geo = region.split('-')[0] ?? '';
  return CROSS_REGION[id]?.includes(geo) ? `${PROFILE_PREFIX[geo]}.${id}` : id;
}
