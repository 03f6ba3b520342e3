import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import passportCustom from 'passport-custom';
import { BusinessError } from '@gw/core';
import { OptionService } from '@gw/option';
import { KvStore } from '@gw/user';
import { type ProvenIdentity, str } from '../identity.js';
import { ProviderHttp } from '../provider-http.js';
import { CodeCallback } from './code-callback.js';

const WECHAT_CODE_TTL_SECONDS = 3 * 60;

/** WeChat through new-api's WeChat server (`wechat`): the code the official account sent is exchanged for an openid. */
@Injectable()
export class WeChatStrategy extends PassportStrategy(passportCustom.Strategy, 'wechat') {
  constructor(
    private readonly callback: CodeCallback,
    private readonly http: ProviderHttp,
    private readonly options: OptionService,
    private readonly kv: KvStore,
  ) {
    super();
  }

  async validate(req: Request): Promise<ProvenIdentity> {
    this.callback.assertEnabled('wechat');
    // The bind form posts the code in its body; login and the old bind link send it in the query.
    const code = str((req.body as { code?: unknown } | undefined)?.code) || str(req.query.code);
    if (!code) throw new BusinessError('the verification code is empty');
    // A code works once, for 3 minutes.
    if (!(await this.kv.setIfAbsent(`oauth:wechat:code:${code}`, '1', WECHAT_CODE_TTL_SECONDS))) {
      throw new BusinessError('the verification code is invalid or has expired');
    }
    const base = this.options.get('WeChatServerAddress').replace(/\/+$/, '');
    if (!base) throw new BusinessError('the WeChat server is not configured');
    const answer = await this.http.json<{ success?: boolean; message?: string; data?: string }>(
      `${base}/api/wechat/user?code=${encodeURIComponent(code)}`,
      { headers: { Authorization: this.options.get('WeChatServerToken') } },
    );
    if (!answer.success || typeof answer.data !== 'string' || !answer.data) {
      throw new BusinessError(
        answer.message ? `WeChat login failed: ${String(answer.message).slice(0, 200)}` : 'the verification code is invalid or has expired',
      );
    }
    return { provider: 'wechat', aff: '', identity: { id: answer.data } };
  }
}
