import { describe, expect, it } from 'vitest';
import {
  appendDelta,
  appendReasoning,
  buildRequest,
  completeMessage,
  failMessage,
  newMessage,
  readConversation,
  saveConversation,
  type ChatMessage,
} from './conversation';
import { DEFAULT_SETTINGS } from './settings';

function memoryStorage(initial: Record<string, string> = {}) {
  const data = new Map(Object.entries(initial));
  return {
    data,
    getItem: (key: string) => data.get(key) ?? null,
    setItem: (key: string, value: string) => void data.set(key, value),
    removeItem: (key: string) => void data.delete(key),
  };
}

describe('message states', () => {
  it('goes loading → incomplete → complete, and a finished message never changes again', () => {
    const reply = newMessage('assistant', '', 'loading');
    let messages: ChatMessage[] = [reply];
    messages = appendDelta(messages, reply.id, 'Hel');
    expect(messages[0]).toMatchObject({ status: 'incomplete', content: 'Hel' });
    messages = appendDelta(messages, reply.id, 'lo');
    messages = completeMessage(messages, reply.id);
    expect(messages[0]).toMatchObject({ status: 'complete', content: 'Hello' });
    // A late chunk, an error or a second finish after completion are ignored.
    messages = appendDelta(messages, reply.id, ' late');
    messages = failMessage(messages, reply.id, { kind: 'upstream', detail: 'boom' });
    expect(messages[0]).toMatchObject({ status: 'complete', content: 'Hello' });
    expect(messages[0]!.error).toBeUndefined();
  });

  it('collects thinking apart from the answer and never sends it back to the model', () => {
    const reply = newMessage('assistant', '', 'loading');
    let messages = appendReasoning([reply], reply.id, 'Hmm, ');
    expect(messages[0]).toMatchObject({ status: 'incomplete', reasoning: 'Hmm, ', content: '' });
    messages = completeMessage(appendDelta(appendReasoning(messages, reply.id, 'yes.'), reply.id, 'Yes'), reply.id);
    expect(messages[0]).toMatchObject({ status: 'complete', reasoning: 'Hmm, yes.', content: 'Yes' });
    expect(buildRequest({ ...DEFAULT_SETTINGS, systemPrompt: '' }, messages).messages).toEqual([{ role: 'assistant', content: 'Yes' }]);
  });

  it('keeps the text that arrived before an error, and an error is final too', () => {
    const reply = newMessage('assistant', '', 'loading');
    let messages = appendDelta([reply], reply.id, 'partial');
    messages = failMessage(messages, reply.id, { kind: 'quota', detail: 'insufficient user quota', status: 403 });
    messages = completeMessage(appendDelta(messages, reply.id, 'more'), reply.id);
    expect(messages[0]).toMatchObject({ status: 'error', content: 'partial', error: { kind: 'quota' } });
  });
});

describe('buildRequest', () => {
  const question = { ...newMessage('user', 'What is this?', 'complete', ['https://img.test/cat.png']) };
  const failed = { ...newMessage('assistant', '', 'error'), error: { kind: 'upstream' as const, detail: 'x' } };
  const answer = newMessage('assistant', 'A cat.', 'complete');

  it('sends the system prompt, finished turns and image parts; leaves out failed replies, unset top_p and max_tokens 0', () => {
    const body = buildRequest({ ...DEFAULT_SETTINGS, group: 'vip' }, [question, failed, answer]);
    expect(body).toEqual({
      model: 'gpt-4o-mini',
      group: 'vip',
      stream: true,
      temperature: 0,
      messages: [
        { role: 'system', content: DEFAULT_SETTINGS.systemPrompt },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'https://img.test/cat.png' } },
          ],
        },
        { role: 'assistant', content: 'A cat.' },
      ],
    });
  });

  it('sends top_p and max_tokens when set, and no system message for an empty prompt', () => {
    const body = buildRequest({ ...DEFAULT_SETTINGS, systemPrompt: '  ', topPEnabled: true, topP: 0.5, maxTokens: 256, stream: false }, [
      answer,
    ]);
    expect(body).toMatchObject({ top_p: 0.5, max_tokens: 256, stream: false, messages: [{ role: 'assistant', content: 'A cat.' }] });
  });
});

describe('saved conversation', () => {
  it('survives a reload; a reply cut off by the reload is closed, never left pending', () => {
    const storage = memoryStorage();
    const cut = { ...newMessage('assistant', 'half an ans', 'incomplete') };
    const empty = newMessage('assistant', '', 'loading');
    saveConversation([newMessage('user', 'hi', 'complete'), cut, empty], storage);
    const restored = readConversation(storage);
    expect(restored.map((message) => message.status)).toEqual(['complete', 'complete', 'error']);
    expect(restored[1]).toMatchObject({ content: 'half an ans', stopped: true });
    expect(restored[2]!.error?.kind).toBe('interrupted');
  });

  it('ignores junk and forgets a cleared conversation', () => {
    expect(readConversation(memoryStorage({ 'playground-messages': '{oops' }))).toEqual([]);
    expect(readConversation(memoryStorage({ 'playground-messages': '[{"id":1},{"nope":true}]' }))).toEqual([]);
    const storage = memoryStorage({ 'playground-messages': '[]' });
    saveConversation([], storage);
    expect(storage.data.has('playground-messages')).toBe(false);
  });
});
