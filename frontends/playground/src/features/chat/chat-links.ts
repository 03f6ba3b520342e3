// Kept in this remote rather than in the shared kit: the kit instance at runtime is the shell's, so a remote
// deployed on its own must not depend on kit exports newer than the shell it runs under.

/**
 * Chat clients the admin lists in the `Chats` option (status `chats`): an array of one-entry objects
 * `{ "Client name": "url template" }`. A template carries placeholders the console fills with the user's
 * key and the gateway address, the same ones new-api's console understands.
 */
export interface ChatLink {
  /** Position in the option, the `:id` of `/chat/:id`. */
  index: number;
  name: string;
  template: string;
}

export interface ChatLinkValues {
  /** The token key, with or without its `sk-` prefix. */
  key: string;
  /** Where clients reach the gateway (the ServerAddress option, else the console's origin). */
  address: string;
}

/** The admin's list, tolerant of a JSON string (as kept in localStorage) and of malformed entries. */
export function parseChatLinks(raw: unknown): ChatLink[] {
  let value = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return [];
    }
  }
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry, index): ChatLink[] => {
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) return [];
    const [first] = Object.entries(entry as Record<string, unknown>);
    if (!first || typeof first[1] !== 'string' || !first[1].trim()) return [];
    return [{ index, name: first[0], template: first[1].trim() }];
  });
}

/** Only http(s) pages can be framed or opened as web pages; anything else is an app's own scheme. */
export function isWebLink(url: string): boolean {
  return /^https?:\/\//i.test(url.trim());
}

/** A template that names a scheme (`https://…`, `cherrystudio://…`); bare words ('fluentread') are not links. */
export function isLinkTemplate(template: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(template.trim());
}

export const withKeyPrefix = (key: string) => (key.startsWith('sk-') ? key : `sk-${key}`);

/** UTF-8 safe base64 (btoa alone throws on non-Latin-1 text such as a Chinese site address). */
function base64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The provider-import payload desktop clients read from their deep link (base64 JSON, URL-encoded). */
function importPayload(fields: Record<string, string>): string {
  return encodeURIComponent(base64(JSON.stringify(fields)));
}

/**
 * Fills a template: `{key}` (sk- key, verbatim), `{address}` (URL-encoded), and the one-shot import
 * payloads `{cherryConfig}`, `{aionuiConfig}`, `{deepchatConfig}` used by Cherry Studio, AionUI and DeepChat.
 */
export function resolveChatLink(template: string, values: ChatLinkValues): string {
  const apiKey = withKeyPrefix(values.key.trim());
  const baseUrl = values.address.trim().replace(/\/+$/, '');
  const payloads: Record<string, () => string> = {
    '{cherryConfig}': () => importPayload({ id: 'new-api', baseUrl, apiKey }),
    '{aionuiConfig}': () => importPayload({ platform: 'new-api', baseUrl, apiKey }),
    '{deepchatConfig}': () => importPayload({ id: 'new-api', baseUrl, apiKey }),
  };
  let url = template;
  for (const [placeholder, payload] of Object.entries(payloads)) {
    if (url.includes(placeholder)) url = url.replaceAll(placeholder, payload());
  }
  return url.replaceAll('{address}', encodeURIComponent(baseUrl)).replaceAll('{key}', apiKey);
}

/** The gateway address clients should call: the admin's ServerAddress, else where the console is served. */
export function chatServerAddress(serverAddress: string | undefined): string {
  return (serverAddress?.trim() || window.location.origin).replace(/\/+$/, '');
}

/**
 * Which client /chat2link opens: the legacy `chat_link` (a ChatGPT-Next-Web deployment) when set, else the
 * first web client of the Chats option, else its first client of any kind; null when none is configured.
 */
export function chat2linkTemplate(status: { chat_link?: string; chats?: unknown }): string | null {
  if (status.chat_link?.trim()) return `${status.chat_link.trim().replace(/\/+$/, '')}/#/?settings={"key":"{key}","url":"{address}"}`;
  const links = parseChatLinks(status.chats).filter((link) => isLinkTemplate(link.template));
  return (links.find((link) => isWebLink(link.template)) ?? links[0])?.template ?? null;
}
