import { useEffect, useState } from 'react';

/** The console's single breakpoint: under 600 px the sidebar hides and panels collapse. */
export const MOBILE_WIDTH = 600;

export function useIsMobile(): boolean {
  const query = `(max-width: ${MOBILE_WIDTH - 1}px)`;
  const [isMobile, setIsMobile] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const media = window.matchMedia(query);
    const update = () => setIsMobile(media.matches);
    media.addEventListener('change', update);
    return () => media.removeEventListener('change', update);
  }, [query]);
  return isMobile;
}
