import type { ChatRequestBody, ContentPart } from './relay-client';
import type { RelayFailure } from './relay-errors';
import type { PlaygroundSettings } from './settings';

/** Spec 001 §4: loading → incomplete while text streams in → complete on [DONE], or error. */
export type MessageStatus = 'loading' | 'incomplete' | 'complete' | 'error';

export interface ChatMessage {
  id: string;
  role: 'user' | 'assistant' | 'system';
  content: string;
  /** A reasoning model's thinking, shown folded above the answer and never sent back to the model. */
  reasoning?: string;
  /** Image URLs (http(s) or data:) sent with a user message to a vision model. */
  images?: string[];
  createAt: number;
  status: MessageStatus;
  error?: RelayFailure;
  /** The user stopped the reply: what arrived is kept, and it is final. */
  stopped?: boolean;
}

export const isPending = (message: ChatMessage) => message.status === 'loading' || message.status === 'incomplete';

let counter = 0;
export function newMessage(role: ChatMessage['role'], content: string, status: MessageStatus, images?: string[]): ChatMessage {
  counter += 1;
  const id = `${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
  return { id, role, content, status, createAt: Date.now(), ...(images?.length ? { images } : {}) };
}

/**
 * Applies a change to one message only while it is pending: once complete or failed a message is never
 * changed again (a late chunk after a stop, a second error, a finish after an error are all ignored).
 */
function updatePending(messages: ChatMessage[], id: string, change: (message: ChatMessage) => Partial<ChatMessage>): ChatMessage[] {
  return messages.map((message) => (message.id === id && isPending(message) ? { ...message, ...change(message) } : message));
}

export const appendDelta = (messages: ChatMessage[], id: string, delta: string) =>
  updatePending(messages, id, (message) => ({ content: message.content + delta, status: 'incomplete' }));

export const appendReasoning = (messages: ChatMessage[], id: string, delta: string) =>
  updatePending(messages, id, (message) => ({ reasoning: (message.reasoning ?? '') + delta, status: 'incomplete' }));

export const completeMessage = (messages: ChatMessage[], id: string, stopped = false) =>
  updatePending(messages, id, () => ({ status: 'complete', ...(stopped ? { stopped: true } : {}) }));

export const failMessage = (messages: ChatMessage[], id: string, error: RelayFailure) =>
  updatePending(messages, id, () => ({ status: 'error', error }));

function contentOf(message: ChatMessage): string | ContentPart[] {
  if (!message.images?.length) return message.content;
  return [
    { type: 'text', text: message.content },
    ...message.images.map((url): ContentPart => ({ type: 'image_url', image_url: { url } })),
  ];
}

/**
 * The request for a reply to `history`: the system prompt, then the finished turns. Failed replies are
 * left out (the model never said them); the user's questions stay.
 */
export function buildRequest(settings: PlaygroundSettings, history: ChatMessage[]): ChatRequestBody {
  const system = settings.systemPrompt.trim() ? [{ role: 'system', content: settings.systemPrompt }] : [];
  const turns = history.filter((message) => message.status === 'complete' && (message.role === 'user' || message.content));
  return {
    model: settings.model,
    group: settings.group,
    messages: [...system, ...turns.map((message) => ({ role: message.role, content: contentOf(message) }))],
    stream: settings.stream,
    temperature: settings.temperature,
    ...(settings.topPEnabled ? { top_p: settings.topP } : {}),
    ...(settings.maxTokens > 0 ? { max_tokens: settings.maxTokens } : {}),
  };
}

const CONVERSATION_KEY = 'playground-messages';

function isMessage(value: unknown): value is ChatMessage {
  const message = value as ChatMessage;
  return (
    Boolean(message) &&
    typeof message.id === 'string' &&
    typeof message.content === 'string' &&
    ['user', 'assistant', 'system'].includes(message.role)
  );
}

/**
 * The conversation saved by the last visit. A reply that was still arriving when the page went away is
 * closed: kept as complete when text had arrived (like a stop), else marked as interrupted.
 */
export function readConversation(storage: Pick<Storage, 'getItem'> = localStorage): ChatMessage[] {
  let stored: unknown;
  try {
    stored = JSON.parse(storage.getItem(CONVERSATION_KEY) ?? '[]');
  } catch {
    return [];
  }
  if (!Array.isArray(stored)) return [];
  return stored.filter(isMessage).map((message) => {
    if (!isPending(message)) return message;
    return message.content
      ? { ...message, status: 'complete', stopped: true }
      : { ...message, status: 'error', error: { kind: 'interrupted', detail: '' } };
  });
}

/** Best effort: a conversation with large pasted images can exceed the browser's storage quota. */
export function saveConversation(messages: ChatMessage[], storage: Pick<Storage, 'setItem' | 'removeItem'> = localStorage): void {
  try {
    if (messages.length === 0) storage.removeItem(CONVERSATION_KEY);
    else storage.setItem(CONVERSATION_KEY, JSON.stringify(messages));
  } catch {
    // Quota exceeded: the conversation still lives in memory for this visit.
  }
}
