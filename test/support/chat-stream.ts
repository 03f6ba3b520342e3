import type OpenAI from 'openai';

/** Reads an OpenAI chat stream to its end: the text of its deltas and the last usage it carried. */
export async function readChatStream(
  stream: AsyncIterable<OpenAI.ChatCompletionChunk>,
): Promise<{ text: string; usage: OpenAI.CompletionUsage | null | undefined }> {
  let text = '';
  let usage: OpenAI.CompletionUsage | null | undefined;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
    usage = chunk.usage ?? usage;
  }
  return { text, usage };
}
