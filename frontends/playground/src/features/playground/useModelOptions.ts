import { useEffect, useState } from 'react';
import { api } from '@console/kit';

type GroupOptions = Record<string, { desc: string; ratio: number | string }>;

/** The groups and models this user may pick in the playground. */
export function useModelOptions() {
  const [groups, setGroups] = useState<GroupOptions>({});
  const [models, setModels] = useState<string[]>([]);
  useEffect(() => {
    api.get<GroupOptions>('/api/user/self/groups').then((data) => setGroups(data ?? {}), () => undefined);
    api.get<string[]>('/api/user/models').then((data) => setModels(data ?? []), () => undefined);
  }, []);
  return { groups, models };
}
