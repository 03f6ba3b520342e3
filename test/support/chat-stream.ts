import type OpenAI from 'openai';

/** Reads an OpenAI chat stream to its end: the text of its deltas and the last usage it carried. */
export async function readChatStream(
  stream: AsyncIterable<OpenAI.ChatCompletionChunk>,
): Promise<{ text: string; reasoning: string; usage: OpenAI.CompletionUsage | null | undefined }> {
  let text = '';
  let reasoning = '';
  let usage: OpenAI.CompletionUsage | null | undefined;
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta as { content?: string | null; reasoning_content?: string } | undefined;
    text += delta?.content ?? '';
    reasoning += delta?.reasoning_content ?? '';
    usage = chunk.usage ?? usage;
  }
  return { text, reasoning, usage };
}
