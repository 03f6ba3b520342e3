import { useEffect, useRef } from 'react';

interface TurnstileApi {
  render(element: HTMLElement, options: { sitekey: string; callback(token: string): void }): string;
  remove(widgetId: string): void;
}

declare global {
  interface Window {
    turnstile?: TurnstileApi;
  }
}

const SCRIPT_URL = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';
let scriptPromise: Promise<void> | null = null;

function loadScript(): Promise<void> {
  scriptPromise ??= new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = SCRIPT_URL;
    script.async = true;
    script.onload = () => resolve();
    script.onerror = () => {
      scriptPromise = null;
      reject(new Error('turnstile script failed'));
    };
    document.head.appendChild(script);
  });
  return scriptPromise;
}

/** The bot-check widget shown when the site has turnstile_check on; hands its token to the form. */
export function Turnstile({ siteKey, onVerify }: { siteKey: string; onVerify(token: string): void }) {
  const container = useRef<HTMLDivElement>(null);
  const verify = useRef(onVerify);
  verify.current = onVerify;
  useEffect(() => {
    let widgetId: string | undefined;
    let cancelled = false;
    loadScript()
      .then(() => {
        if (cancelled || !container.current || !window.turnstile) return;
        widgetId = window.turnstile.render(container.current, { sitekey: siteKey, callback: (token) => verify.current(token) });
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
      if (widgetId) window.turnstile?.remove(widgetId);
    };
  }, [siteKey]);
  return <div ref={container} style={{ margin: '12px 0' }} />;
}
