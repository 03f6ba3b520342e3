import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import passportCustom from 'passport-custom';
import { BusinessError } from '@gw/core';
import { OptionService } from '@gw/option';
import type { ProvenIdentity } from '../identity.js';
import { ProviderHttp } from '../provider-http.js';
import { CodeCallback } from './code-callback.js';

interface LinuxDoUser {
  id?: number;
  username?: string;
  name?: string;
  active?: boolean;
  silenced?: boolean;
  trust_level?: number;
}

/** Linux DO Connect (`linuxdo`): OAuth 2 with HTTP Basic client auth, then the minimum trust level. */
@Injectable()
export class LinuxDoStrategy extends PassportStrategy(passportCustom.Strategy, 'linuxdo') {
  constructor(
    private readonly callback: CodeCallback,
    private readonly http: ProviderHttp,
    private readonly options: OptionService,
  ) {
    super();
  }

  async validate(req: Request): Promise<ProvenIdentity> {
    const { code, record } = await this.callback.open(req, 'linuxdo');
    const basic = Buffer.from(`${this.options.get('LinuxDOClientId')}:${this.options.get('LinuxDOClientSecret')}`).toString('base64');
    const token = await this.http.json<{ access_token?: string }>(this.options.get('LinuxDOTokenUrl'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${basic}` },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: this.callback.redirectUri('linuxdo') }).toString(),
    });
    if (!token.access_token) throw new BusinessError('Linux DO login failed: no access token');
    const user = await this.http.json<LinuxDoUser>(this.options.get('LinuxDOUserUrl'), {
      headers: { authorization: `Bearer ${token.access_token}`, accept: 'application/json' },
    });
    if (user.id === undefined || user.id === null) throw new BusinessError('Linux DO login failed: no user id');
    if (user.active === false || user.silenced === true) throw new BusinessError('the Linux DO account is not active');
    if ((user.trust_level ?? 0) < this.options.get('LinuxDOMinimumTrustLevel'))
      throw new BusinessError('the Linux DO trust level is too low');
    return {
      provider: 'linuxdo',
      aff: record.aff,
      identity: { id: String(user.id), username: user.username, displayName: user.name || user.username },
    };
  }
}
