import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import passportCustom from 'passport-custom';
import { BusinessError } from '@gw/core';
import { OptionService } from '@gw/option';
import type { ProvenIdentity } from '../identity.js';
import { ProviderHttp } from '../provider-http.js';
import { CodeCallback } from './code-callback.js';

/**
 * GitHub sign-in (`github`). passport-github2 was not used: it exchanges the code with its own HTTP
 * client (outside the outbound guard) and reads its client id once at start-up, while these are
 * runtime options; the exchange itself is GitHub's documented JSON form.
 */
@Injectable()
export class GitHubStrategy extends PassportStrategy(passportCustom.Strategy, 'github') {
  constructor(
    private readonly callback: CodeCallback,
    private readonly http: ProviderHttp,
    private readonly options: OptionService,
  ) {
    super();
  }

  async validate(req: Request): Promise<ProvenIdentity> {
    const { code, record } = await this.callback.open(req, 'github');
    const token = await this.http.json<{ access_token?: string }>(this.options.get('GitHubTokenUrl'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        client_id: this.options.get('GitHubClientId'),
        client_secret: this.options.get('GitHubClientSecret'),
        code,
        // A login started at `/api/oauth/github/authorize` sent a challenge and the same redirect address; one
        // started from `/api/oauth/state` (new-api's console) has neither, and GitHub then expects neither.
        ...(record.verifier ? { code_verifier: record.verifier, redirect_uri: this.callback.redirectUri('github') } : {}),
      }),
    });
    if (!token.access_token) throw new BusinessError('GitHub login failed: no access token');
    const user = await this.http.json<{ id?: number | string; login?: string; name?: string; email?: string }>(
      this.options.get('GitHubUserUrl'),
      { headers: { authorization: `Bearer ${token.access_token}`, accept: 'application/json', 'user-agent': 'ai-gateway' } },
    );
    if (user.id === undefined || user.id === null || user.id === '') throw new BusinessError('GitHub login failed: no user id');
    return {
      provider: 'github',
      aff: record.aff,
      identity: { id: String(user.id), username: user.login, displayName: user.name || user.login, email: user.email },
    };
  }
}
