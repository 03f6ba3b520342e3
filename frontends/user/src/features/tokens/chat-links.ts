import { statusStore } from '@console/kit';

export interface ChatLink {
  name: string;
  template: string;
}

/** The admin's chat clients (status `chats`: a list of {name: url-template}), plus the legacy chat_link. */
export function chatLinks(): ChatLink[] {
  const status = statusStore.get();
  const links: ChatLink[] = [];
  const chats = status.chats;
  if (Array.isArray(chats)) {
    for (const entry of chats) {
      if (entry && typeof entry === 'object') {
        for (const [name, template] of Object.entries(entry as Record<string, unknown>)) {
          if (typeof template === 'string') links.push({ name, template });
        }
      }
    }
  }
  if (links.length === 0 && status.chat_link)
    links.push({ name: 'ChatGPT Next Web', template: `${status.chat_link}/#/?settings={"key":"{key}","url":"{address}"}` });
  return links;
}

export function buildChatUrl(template: string, fullKey: string): string {
  const address = statusStore.get().server_address || window.location.origin;
  return template.replaceAll('{key}', fullKey).replaceAll('{address}', encodeURIComponent(address));
}
