import { useCallback, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Toast } from '@console/kit';
import { StreamError, streamChat } from './sse';
import type { PlaygroundSettings } from './settings';

export type MessageStatus = 'loading' | 'incomplete' | 'complete' | 'error';

export interface ChatMessage {
  id: string;
  role: 'user' | 'assistant' | 'system';
  content: string;
  createAt: number;
  status: MessageStatus;
}

const newId = () => `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

/** The conversation and one in-flight reply: loading -> incomplete while text streams -> complete | error. */
export function useChat(settings: PlaygroundSettings) {
  const { t } = useTranslation('playground');
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [streaming, setStreaming] = useState(false);
  const abort = useRef<AbortController | null>(null);

  // A finished message is never changed again; only the pending reply is updated.
  const updateReply = (id: string, update: (message: ChatMessage) => Partial<ChatMessage>) =>
    setMessages((current) => current.map((m) => (m.id === id && (m.status === 'loading' || m.status === 'incomplete') ? { ...m, ...update(m) } : m)));

  const send = useCallback(
    async (text: string) => {
      const content = text.trim();
      if (!content || streaming) return;
      const question: ChatMessage = { id: newId(), role: 'user', content, createAt: Date.now(), status: 'complete' };
      const reply: ChatMessage = { id: newId(), role: 'assistant', content: '', createAt: Date.now(), status: 'loading' };
      const history = [...messages.filter((m) => m.status === 'complete'), question].map(({ role, content: c }) => ({ role, content: c }));
      const system = settings.systemPrompt.trim() ? [{ role: 'system', content: settings.systemPrompt }] : [];
      setMessages((current) => [...current, question, reply]);
      setStreaming(true);
      const controller = new AbortController();
      abort.current = controller;
      try {
        await streamChat(
          { model: settings.model, group: settings.group, temperature: settings.temperature, max_tokens: settings.maxTokens, messages: [...system, ...history] },
          {
            onDelta: (delta) => updateReply(reply.id, (m) => ({ content: m.content + delta, status: 'incomplete' })),
            onParseError: () => Toast.error(t('parseFailed')),
          },
          controller.signal,
        );
        updateReply(reply.id, () => ({ status: 'complete' }));
      } catch (error) {
        if ((error as Error).name === 'AbortError') updateReply(reply.id, () => ({ status: 'complete' }));
        else {
          const detail = error instanceof StreamError ? error.message : t('networkError');
          updateReply(reply.id, (m) => ({ content: `${m.content}${m.content ? '\n\n' : ''}${detail}`, status: 'error' }));
        }
      } finally {
        abort.current = null;
        setStreaming(false);
      }
    },
    [messages, settings, streaming, t],
  );

  const stop = useCallback(() => abort.current?.abort(), []);
  const clear = useCallback(() => {
    abort.current?.abort();
    setMessages([]);
  }, []);

  return { messages, streaming, send, stop, clear };
}
