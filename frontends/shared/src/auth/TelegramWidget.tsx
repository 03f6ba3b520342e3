import { useEffect, useRef } from 'react';

/**
 * Telegram's login widget; Telegram sends the browser to `authUrl` with the signed user fields
 * (`/api/oauth/telegram/login` to log in, `/api/oauth/telegram/bind` to bind a logged-in account).
 */
export function TelegramWidget({ botName, authUrl }: { botName: string; authUrl: string }) {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const host = container.current;
    if (!host) return;
    const script = document.createElement('script');
    script.src = 'https://telegram.org/js/telegram-widget.js?22';
    script.async = true;
    script.setAttribute('data-telegram-login', botName);
    script.setAttribute('data-size', 'medium');
    script.setAttribute('data-auth-url', authUrl);
    host.appendChild(script);
    return () => {
      host.innerHTML = '';
    };
  }, [botName, authUrl]);
  return <div ref={container} />;
}
