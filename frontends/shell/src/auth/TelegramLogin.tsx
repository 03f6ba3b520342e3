import { useEffect, useRef } from 'react';

/** Telegram's login widget; Telegram redirects to the gateway's auth URL with the signed user fields. */
export function TelegramLogin({ botName }: { botName: string }) {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const host = container.current;
    if (!host) return;
    const script = document.createElement('script');
    script.src = 'https://telegram.org/js/telegram-widget.js?22';
    script.async = true;
    script.setAttribute('data-telegram-login', botName);
    script.setAttribute('data-size', 'medium');
    script.setAttribute('data-auth-url', '/api/oauth/telegram/login');
    host.appendChild(script);
    return () => {
      host.innerHTML = '';
    };
  }, [botName]);
  return <div ref={container} style={{ display: 'flex', justifyContent: 'center', marginTop: 12 }} />;
}
