/**
 * new-api's separate price of audio input for Gemini models (US$ per million tokens), by model-name prefix, the
 * most specific first; 0 for the rest, whose audio tokens stay in the prompt at the text price.
 */
const GEMINI_AUDIO_INPUT_PRICES: readonly (readonly [prefix: string, usdPerMillion: number])[] = [
  ['gemini-2.5-flash-preview-native-audio', 3],
  ['gemini-2.5-flash-preview-lite', 0.5],
  ['gemini-2.5-flash-preview', 1],
  ['gemini-2.5-flash', 1],
  ['gemini-2.0-flash', 0.7],
  ['gemini-robotics-er-1.5', 1],
];

export function geminiAudioInputPrice(model: string): number {
  for (const [prefix, price] of GEMINI_AUDIO_INPUT_PRICES) if (model.startsWith(prefix)) return price;
  return 0;
}
