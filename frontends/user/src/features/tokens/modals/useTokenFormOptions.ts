import { useEffect, useState } from 'react';
import { tokensApi, type GroupOptions } from '../api';

/** Choices the token form offers: the user's usable groups and the models they may call. */
export function useTokenFormOptions(active: boolean) {
  const [groups, setGroups] = useState<GroupOptions>({});
  const [models, setModels] = useState<string[]>([]);
  useEffect(() => {
    if (!active) return;
    tokensApi.groups().then(
      (data) => setGroups(data ?? {}),
      () => undefined,
    );
    tokensApi.models().then(
      (data) => setModels(data ?? []),
      () => undefined,
    );
  }, [active]);
  return { groups, models };
}
