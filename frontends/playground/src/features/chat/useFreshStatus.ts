import { useEffect, useState } from 'react';
import { loadStatus, useStatus, type SiteStatus } from '@console/kit';

/**
 * The site status once re-read from the server. The stored copy may predate the admin's last change to the
 * chat clients, and these pages act on it at once (a frame, a redirect), so they wait for the fresh one;
 * if the server cannot be reached, the stored copy is used.
 */
export function useFreshStatus(): Partial<SiteStatus> | null {
  const status = useStatus();
  const [fresh, setFresh] = useState(false);
  useEffect(() => {
    let cancelled = false;
    loadStatus()
      .catch(() => undefined)
      .finally(() => !cancelled && setFresh(true));
    return () => {
      cancelled = true;
    };
  }, []);
  return fresh ? status : null;
}
