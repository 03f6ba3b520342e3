import { api, apiEnvelope, type Page } from '@console/kit';

export interface PayMethod {
  name: string;
  type: string;
  color?: string;
}

/** GET /api/user/topup/info: what the wallet may offer. */
export interface TopUpInfo {
  enable_online_topup: boolean;
  min_topup: number;
  pay_methods: PayMethod[];
  topup_link: string;
  amount_options: number[];
  discount: Record<string, number>;
}

export type TopUpStatus = 'pending' | 'success' | 'expired';

export interface TopUpOrder {
  id: number;
  amount: number;
  money: number;
  trade_no: string;
  payment_method: string;
  create_time: number;
  complete_time: number;
  status: TopUpStatus;
}

/** POST /api/user/pay answers the gateway's URL and the signed form fields at the top level. */
export interface PayForm {
  url: string;
  data: Record<string, string>;
}

export const walletApi = {
  /** Answers the quota credited. */
  redeem: (key: string) => api.post<number>('/api/user/topup', { key }),
  info: () => api.get<TopUpInfo>('/api/user/topup/info'),
  /** The price the server computes for an amount (a string with two decimals). */
  quote: (amount: number) => api.post<string>('/api/user/amount', { amount }, { quiet: true }),
  pay: async (amount: number, paymentMethod: string): Promise<PayForm> => {
    const envelope = await apiEnvelope<Record<string, string>, { url: string }>('POST', '/api/user/pay', {
      body: { amount, payment_method: paymentMethod },
    });
    return { url: envelope.url, data: envelope.data };
  },
  orders: (page: number, pageSize: number) =>
    api.get<Page<TopUpOrder>>('/api/user/topup/self', { query: { p: page, page_size: pageSize } }),
};

/**
 * Posts the payment form in this window, as new-api does: the gateway expects a browser form submit,
 * not an XHR, so that its page can take over. Every field goes in as a hidden input, never as HTML.
 */
export function submitPayForm(form: PayForm, doc: Document = document): void {
  const element = doc.createElement('form');
  element.method = 'POST';
  element.action = form.url;
  element.style.display = 'none';
  for (const [name, value] of Object.entries(form.data ?? {})) {
    const input = doc.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = String(value);
    element.appendChild(input);
  }
  doc.body.appendChild(element);
  element.submit();
}
