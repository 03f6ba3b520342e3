import { useEffect, useState } from 'react';
import { apiEnvelope } from '@console/kit';
import { comparePricing, type PricingExtra, type PricingRow } from './pricing-model';

export interface PricingData extends PricingExtra {
  rows: PricingRow[];
  loading: boolean;
}

export function usePricing(): PricingData {
  const [data, setData] = useState<PricingData>({ rows: [], group_ratio: {}, usable_group: {}, loading: true });
  useEffect(() => {
    apiEnvelope<PricingRow[], Partial<PricingExtra>>('GET', '/api/pricing').then(
      (envelope) =>
        setData({
          rows: [...(envelope.data ?? [])].map((row) => ({ ...row, enable_groups: row.enable_groups ?? [] })).sort(comparePricing),
          group_ratio: envelope.group_ratio ?? {},
          usable_group: envelope.usable_group ?? {},
          loading: false,
        }),
      () => setData((current) => ({ ...current, loading: false })),
    );
  }, []);
  return data;
}
