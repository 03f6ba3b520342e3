import { Injectable, Logger } from '@nestjs/common';
import { BusinessError, outboundFetch, OutboundUrlError } from '@gw/core';
import { OptionService } from '@gw/option';

export interface ProviderRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/**
 * Every call a login strategy makes to an identity provider goes through the gateway's outbound guard:
 * private addresses only with `AllowPrivateOutboundUrls`, redirects never followed, bounded time and size.
 */
@Injectable()
export class ProviderHttp {
  private readonly logger = new Logger('OAuth');

  constructor(private readonly options: OptionService) {}

  private get allowPrivate(): boolean {
    return this.options.get('AllowPrivateOutboundUrls');
  }

  async json<T>(url: string, init: ProviderRequest = {}): Promise<T> {
    try {
      const res = await outboundFetch(url, { ...init, allowPrivate: this.allowPrivate });
      if (res.status >= 300) throw new BusinessError(`the provider answered HTTP ${res.status}`);
      return res.json<T>();
    } catch (error) {
      throw this.unreachable(url, error);
    }
  }

  /** A WHATWG fetch over the same guard, for openid-client's `customFetch`. */
  readonly fetch = async (url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown }): Promise<Response> => {
    const method = init.method === 'POST' ? 'POST' : 'GET';
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const body = init.body === undefined || init.body === null ? undefined : String(init.body);
    try {
      const res = await outboundFetch(url, { method, headers, body, allowPrivate: this.allowPrivate });
      const answerHeaders = new Headers();
      for (const [key, value] of Object.entries(res.headers)) {
        for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) answerHeaders.append(key, one);
      }
      return new Response(res.status === 204 ? null : res.text, { status: res.status, headers: answerHeaders });
    } catch (error) {
      throw this.unreachable(url, error);
    }
  };

  private unreachable(url: string, error: unknown): unknown {
    if (error instanceof OutboundUrlError || error instanceof BusinessError) {
      this.logger.warn(`${url}: ${error.message}`);
      return new BusinessError(`could not reach the provider: ${error.message}`);
    }
    return error;
  }
}
