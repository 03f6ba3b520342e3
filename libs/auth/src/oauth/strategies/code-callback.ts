import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { BusinessError } from '@gw/core';
import { OptionService } from '@gw/option';
import { type BuiltInProvider, str } from '../identity.js';
import { OAuthStateStore, type OAuthStateRecord } from '../oauth-state.js';

export const PROVIDER_LABEL: Record<BuiltInProvider, string> = {
  github: 'GitHub',
  oidc: 'OIDC',
  linuxdo: 'Linux DO',
  discord: 'Discord',
  wechat: 'WeChat',
  telegram: 'Telegram',
};

/** The first steps every built-in login strategy shares, in new-api's order: switch, then state, then code. */
@Injectable()
export class CodeCallback {
  constructor(
    private readonly options: OptionService,
    private readonly states: OAuthStateStore,
  ) {}

  assertEnabled(provider: BuiltInProvider): void {
    const enabled = {
      github: this.options.get('GitHubOAuthEnabled'),
      oidc: this.options.get('oidc.enabled'),
      linuxdo: this.options.get('LinuxDOOAuthEnabled'),
      discord: this.options.get('discord.enabled'),
      wechat: this.options.get('WeChatAuthEnabled'),
      telegram: this.options.get('TelegramOAuthEnabled'),
    }[provider];
    if (!enabled) throw new BusinessError(`the administrator has not enabled ${PROVIDER_LABEL[provider]} login`);
  }

  /** For an authorization-code callback: the provider is on, the state is this browser's, the code is there. */
  async open(req: Request, provider: BuiltInProvider): Promise<{ code: string; state: string; record: OAuthStateRecord }> {
    this.assertEnabled(provider);
    const state = str(req.query.state);
    const record = await this.states.consume(req, state, provider);
    const code = str(req.query.code);
    if (!code) throw new BusinessError('the authorization code is empty');
    return { code, state, record };
  }

  /** The callback address registered at the provider (the console's `/oauth/:provider` page). */
  redirectUri(provider: string): string {
    return `${this.options.get('ServerAddress').replace(/\/+$/, '')}/oauth/${provider}`;
  }
}
