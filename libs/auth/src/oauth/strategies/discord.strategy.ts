import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import passportCustom from 'passport-custom';
import { BusinessError } from '@gw/core';
import { OptionService } from '@gw/option';
import type { ProvenIdentity } from '../identity.js';
import { ProviderHttp } from '../provider-http.js';
import { CodeCallback } from './code-callback.js';

/** Discord (`discord`): OAuth 2 with the client secret (and the PKCE verifier, if any) in the form, then `/users/@me`. */
@Injectable()
export class DiscordStrategy extends PassportStrategy(passportCustom.Strategy, 'discord') {
  constructor(
    private readonly callback: CodeCallback,
    private readonly http: ProviderHttp,
    private readonly options: OptionService,
  ) {
    super();
  }

  async validate(req: Request): Promise<ProvenIdentity> {
    const { code, record } = await this.callback.open(req, 'discord');
    const token = await this.http.json<{ access_token?: string }>(this.options.get('DiscordTokenUrl'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        client_id: this.options.get('discord.client_id'),
        client_secret: this.options.get('discord.client_secret'),
        grant_type: 'authorization_code',
        code,
        redirect_uri: this.callback.redirectUri('discord'),
        // Only a login started at `/api/oauth/discord/authorize` sent a challenge (see AuthorizeLinkService).
        ...(record.verifier ? { code_verifier: record.verifier } : {}),
      }).toString(),
    });
    if (!token.access_token) throw new BusinessError('Discord login failed: no access token');
    const user = await this.http.json<{ id?: string; username?: string; global_name?: string | null }>(this.options.get('DiscordUserUrl'), {
      headers: { authorization: `Bearer ${token.access_token}`, accept: 'application/json' },
    });
    if (!user.id) throw new BusinessError('Discord login failed: no user id');
    return {
      provider: 'discord',
      aff: record.aff,
      identity: { id: String(user.id), username: user.username, displayName: user.global_name || user.username },
    };
  }
}
