import { useEffect, useRef } from 'react';

/**
 * Telegram's login widget. Telegram sends the browser to the console's /oauth/telegram with the signed user
 * fields; that page calls GET /api/oauth/telegram/login with them and stores the user, as every login does
 * (a widget callback, `data-onauth`, would need the page to allow eval).
 */
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
    script.setAttribute('data-auth-url', '/oauth/telegram');
    host.appendChild(script);
    return () => {
      host.innerHTML = '';
    };
  }, [botName]);
  return <div ref={container} style={{ display: 'flex', justifyContent: 'center', marginTop: 12 }} />;
}
