import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Toast } from '@console/kit';
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
import { RelayRequestError, sendChat, type ChatRequestBody } from './relay-client';
import { networkFailure } from './relay-errors';
import type { PlaygroundSettings } from './settings';

/** The last exchange with the relay, for the debug panel. */
export interface DebugExchange {
  request: ChatRequestBody;
  /** The answer as received (SSE text or JSON), capped so a long stream cannot bloat memory. */
  response: string;
  startedAt: number;
}

const MAX_DEBUG_RESPONSE = 256 * 1024;
const SAVE_WHILE_STREAMING_MS = 500;

/** The conversation (kept across reloads) and the one reply in flight. */
export function useChat(settings: PlaygroundSettings) {
  const { t } = useTranslation('playground');
  const [messages, setMessages] = useState<ChatMessage[]>(() => readConversation());
  const [streaming, setStreaming] = useState(false);
  const [debug, setDebug] = useState<DebugExchange | null>(null);
  const abort = useRef<AbortController | null>(null);
  // Actions read the latest conversation without being re-created on every streamed chunk.
  const latest = useRef({ messages, settings });
  latest.current = { messages, settings };

  // Set synchronously, so a double click cannot send twice before React re-renders.
  const busy = useRef(false);
  const pendingSave = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => {
    // While an answer streams in, saved at most twice a second (a throttle: chunks must not keep pushing the
    // save back); a reply cut off by a reload is closed when the conversation is read back.
    if (!streaming) {
      clearTimeout(pendingSave.current);
      pendingSave.current = undefined;
      saveConversation(messages);
    } else if (pendingSave.current === undefined) {
      pendingSave.current = setTimeout(() => {
        pendingSave.current = undefined;
        saveConversation(latest.current.messages);
      }, SAVE_WHILE_STREAMING_MS);
    }
  }, [messages, streaming]);
  useEffect(() => () => clearTimeout(pendingSave.current), []);

  /** Asks for a reply to `history` (which ends with the user's question) and streams it into a new message. */
  const reply = useCallback(
    async (history: ChatMessage[]) => {
      busy.current = true;
      const answer = newMessage('assistant', '', 'loading');
      const request = buildRequest(latest.current.settings, history);
      setMessages([...history, answer]);
      setDebug({ request, response: '', startedAt: Date.now() });
      setStreaming(true);
      const controller = new AbortController();
      abort.current = controller;
      try {
        await sendChat(
          request,
          {
            onDelta: (delta) => setMessages((current) => appendDelta(current, answer.id, delta)),
            onReasoning: (delta) => setMessages((current) => appendReasoning(current, answer.id, delta)),
            onParseError: () => Toast.error(t('parseFailed')),
            onRaw: (text) =>
              setDebug((current) =>
                current && current.response.length < MAX_DEBUG_RESPONSE ? { ...current, response: current.response + text } : current,
              ),
          },
          controller.signal,
        );
        setMessages((current) => completeMessage(current, answer.id));
      } catch (error) {
        if ((error as Error).name === 'AbortError') setMessages((current) => completeMessage(current, answer.id, true));
        else {
          const failure = error instanceof RelayRequestError ? error.failure : networkFailure((error as Error).message);
          setMessages((current) => failMessage(current, answer.id, failure));
        }
      } finally {
        if (abort.current === controller) abort.current = null;
        busy.current = false;
        setStreaming(false);
      }
    },
    [t],
  );

  const send = useCallback(
    (text: string, images: string[] = []) => {
      const content = text.trim();
      if ((!content && images.length === 0) || busy.current) return false;
      void reply([...latest.current.messages, newMessage('user', content, 'complete', images)]);
      return true;
    },
    [reply],
  );

  /** Asks again for the reply `id`: it and everything after it are replaced. */
  const retry = useCallback(
    (id: string) => {
      const current = latest.current.messages;
      const index = current.findIndex((message) => message.id === id);
      if (busy.current || index < 1) return;
      void reply(current.slice(0, index));
    },
    [reply],
  );

  /** Sends an edited question in place of question `id`; the turns after it are dropped, the old ones are never mutated. */
  const editAndResend = useCallback(
    (id: string, text: string) => {
      const current = latest.current.messages;
      const index = current.findIndex((message) => message.id === id);
      const original = current[index];
      if (busy.current || !original || !text.trim()) return;
      void reply([...current.slice(0, index), newMessage('user', text.trim(), 'complete', original.images)]);
    },
    [reply],
  );

  const stop = useCallback(() => abort.current?.abort(), []);
  const clear = useCallback(() => {
    abort.current?.abort();
    setMessages([]);
    setDebug(null);
  }, []);

  return { messages, streaming, debug, send, retry, editAndResend, stop, clear };
}

export type Chat = ReturnType<typeof useChat>;
