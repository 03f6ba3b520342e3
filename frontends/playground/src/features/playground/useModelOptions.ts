import { useEffect, useState } from 'react';
import { api } from '@console/kit';

export type GroupOptions = Record<string, { desc: string; ratio: number | string }>;

/** The groups this user may pick (their usable groups) and the models enabled for them. */
export function useModelOptions() {
  const [groups, setGroups] = useState<GroupOptions>({});
  const [models, setModels] = useState<string[]>([]);
  useEffect(() => {
    // Failures are already toasted by the API client; the pickers then offer only the current values.
    api.get<GroupOptions>('/api/user/self/groups').then(
      (data) => setGroups(data ?? {}),
      () => undefined,
    );
    api.get<string[]>('/api/user/models').then(
      (data) => setModels(Array.isArray(data) ? data : []),
      () => undefined,
    );
  }, []);
  return { groups, models };
}
