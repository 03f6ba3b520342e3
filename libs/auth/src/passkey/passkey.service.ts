import { Injectable } from '@nestjs/common';
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  RegistrationResponseJSON,
  VerifiedAuthenticationResponse,
  VerifiedRegistrationResponse,
} from '@simplewebauthn/server';
import type { Request } from 'express';
import { BusinessError, ForbiddenError, NotFoundError, onFirstUse, Role, type Principal } from '@gw/core';
import { OptionService } from '@gw/option';
import { KvStore, UserService, UserStatus, type UserEntity } from '@gw/user';
import type { PasskeyCredentialEntity } from './passkey.entity.js';
import { PasskeyRepository } from './passkey.repository.js';
import { relyingParty } from './relying-party.js';

const CHALLENGE_TTL_SECONDS = 5 * 60;
/** With its ASN.1 and X.509 stack, some 330 files: loaded by the first passkey ceremony, not by every process. */
const webauthn = onFirstUse(() => import('@simplewebauthn/server'));
const FAILED = 'passkey verification failed, try again or contact the administrator';

type Purpose = 'register' | 'verify' | 'login';

const b64 = {
  /** base64url (WebAuthn JSON) → standard base64 (new-api's columns). */
  toStd: (value: string) => Buffer.from(value, 'base64url').toString('base64'),
  toUrl: (value: string) => Buffer.from(value, 'base64').toString('base64url'),
};

function aaguidToBase64(uuid: string): string {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex').toString('base64');
}

function transportsOf(row: PasskeyCredentialEntity): AuthenticatorTransport[] | undefined {
  try {
    const list: unknown = row.transports ? JSON.parse(row.transports) : undefined;
    return Array.isArray(list) ? (list.filter((t) => typeof t === 'string') as AuthenticatorTransport[]) : undefined;
  } catch {
    return undefined;
  }
}

/** The challenge the browser signed, read from its clientDataJSON (verified again by the library). */
function challengeOf(body: { response?: { clientDataJSON?: unknown } } | undefined): string {
  const encoded = body?.response?.clientDataJSON;
  if (typeof encoded !== 'string' || encoded.length > 8192) throw new BusinessError('the passkey response is malformed');
  try {
    const parsed = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as { challenge?: unknown };
    if (typeof parsed.challenge !== 'string' || !parsed.challenge) throw new Error('no challenge');
    return parsed.challenge;
  } catch {
    throw new BusinessError('the passkey response is malformed');
  }
}

/** Passkeys (WebAuthn) for login and re-verification, with `@simplewebauthn/server`. */
@Injectable()
export class PasskeyService {
  constructor(
    private readonly repo: PasskeyRepository,
    private readonly users: UserService,
    private readonly options: OptionService,
    private readonly kv: KvStore,
  ) {}

  private assertEnabled(): void {
    if (!this.options.get('passkey.enabled')) throw new BusinessError('the administrator has not enabled passkey login');
  }

  async status(userId: number) {
    const rows = await this.repo.listByUser(userId);
    const lastUsed = rows.map((r) => r.lastUsedAt?.getTime() ?? 0).reduce((a, b) => Math.max(a, b), 0);
    return {
      enabled: rows.length > 0,
      last_used_at: lastUsed ? new Date(lastUsed).toISOString() : null,
      passkeys: rows.map((r) => ({
        id: r.id,
        credential_id: r.credentialId,
        attachment: r.attachment ?? '',
        backup_eligible: r.backupEligible,
        created_at: r.createdAt?.toISOString() ?? null,
        last_used_at: r.lastUsedAt?.toISOString() ?? null,
      })),
    };
  }

  async registerBegin(req: Request, userId: number) {
    this.assertEnabled();
    const user = await this.liveUser(userId);
    const rp = relyingParty(this.options, req);
    const existing = await this.repo.listByUser(userId);
    const attachment = this.options.get('passkey.attachment_preference');
    const { generateRegistrationOptions } = await webauthn();
    const options = await generateRegistrationOptions({
      rpName: rp.rpName,
      rpID: rp.rpID,
      userName: user.username,
      userDisplayName: user.displayName || user.username,
      // new-api's user handle: the decimal user id.
      userID: new TextEncoder().encode(String(user.id)),
      attestationType: 'none',
      excludeCredentials: existing.map((r) => ({ id: b64.toUrl(r.credentialId), transports: transportsOf(r) })),
      authenticatorSelection: {
        residentKey: 'required',
        userVerification: this.options.get('passkey.user_verification'),
        ...(attachment ? { authenticatorAttachment: attachment } : {}),
      },
    });
    await this.remember('register', options.challenge, userId);
    return { options: { publicKey: options } };
  }

  async registerFinish(req: Request, userId: number, body: RegistrationResponseJSON): Promise<void> {
    this.assertEnabled();
    await this.liveUser(userId);
    const challenge = await this.consume('register', challengeOf(body), userId);
    const rp = relyingParty(this.options, req);
    const { verifyRegistrationResponse } = await webauthn();
    let verification: VerifiedRegistrationResponse;
    try {
      verification = await verifyRegistrationResponse({
        response: body,
        expectedChallenge: challenge,
        expectedOrigin: rp.origins,
        expectedRPID: rp.rpID,
        requireUserVerification: this.options.get('passkey.user_verification') === 'required',
      });
    } catch (error) {
      throw new BusinessError(`passkey registration failed: ${(error as Error).message}`.slice(0, 300));
    }
    if (!verification.verified) throw new BusinessError('passkey registration failed');
    const info = verification.registrationInfo;
    const credentialId = b64.toStd(info.credential.id);
    if (await this.repo.credentialTaken(credentialId)) throw new BusinessError('this passkey is already registered');
    await this.repo.insert({
      userId,
      credentialId,
      publicKey: Buffer.from(info.credential.publicKey).toString('base64'),
      attestationType: info.fmt === 'none' ? 'none' : info.fmt,
      aaguid: aaguidToBase64(info.aaguid),
      signCount: info.credential.counter,
      cloneWarning: false,
      userPresent: true,
      userVerified: info.userVerified,
      backupEligible: info.credentialDeviceType === 'multiDevice',
      backupState: info.credentialBackedUp,
      transports: JSON.stringify(info.credential.transports ?? body.response?.transports ?? []),
      attachment: typeof body.authenticatorAttachment === 'string' ? body.authenticatorAttachment.slice(0, 32) : '',
    });
  }

  async remove(userId: number, credentialId?: string): Promise<void> {
    const removed = await this.repo.deleteForUser(userId, credentialId);
    if (!removed) throw new BusinessError('no passkey is registered');
  }

  async adminReset(caller: Principal, targetId: number): Promise<void> {
    const target = await this.users.findById(targetId);
    if (!target) throw new NotFoundError('user does not exist');
    if (caller.role !== Role.Root && target.role >= caller.role)
      throw new ForbiddenError('no permission to reset the passkeys of a user with the same or a higher role');
    if (!(await this.repo.deleteForUser(targetId))) throw new BusinessError('the user has no passkey');
  }

  /** A signed challenge for the logged-in user's own passkeys (re-verification before a sensitive action). */
  async verifyBegin(req: Request, userId: number) {
    this.assertEnabled();
    const rows = await this.repo.listByUser(userId);
    if (!rows.length) throw new BusinessError('no passkey is registered');
    const rp = relyingParty(this.options, req);
    const { generateAuthenticationOptions } = await webauthn();
    const options = await generateAuthenticationOptions({
      rpID: rp.rpID,
      allowCredentials: rows.map((r) => ({ id: b64.toUrl(r.credentialId), transports: transportsOf(r) })),
      userVerification: this.options.get('passkey.user_verification'),
    });
    await this.remember('verify', options.challenge, userId);
    return { options: { publicKey: options } };
  }

  async verifyFinish(req: Request, userId: number, body: AuthenticationResponseJSON): Promise<void> {
    this.assertEnabled();
    const challenge = await this.consume('verify', challengeOf(body), userId);
    const row = await this.check(req, body, challenge);
    if (row.userId !== userId) throw new BusinessError(FAILED);
  }

  /** Discoverable login: the browser picks the passkey, the credential names the user. */
  async loginBegin(req: Request) {
    this.assertEnabled();
    const rp = relyingParty(this.options, req);
    const { generateAuthenticationOptions } = await webauthn();
    const options = await generateAuthenticationOptions({ rpID: rp.rpID, userVerification: this.options.get('passkey.user_verification') });
    await this.remember('login', options.challenge, 0);
    return { options: { publicKey: options } };
  }

  async loginFinish(req: Request, body: AuthenticationResponseJSON): Promise<UserEntity> {
    this.assertEnabled();
    const challenge = await this.consume('login', challengeOf(body), 0);
    const row = await this.check(req, body, challenge);
    const user = await this.users.findById(row.userId);
    if (!user || user.status !== UserStatus.Enabled) throw new BusinessError('the user has been banned');
    const handle = typeof body.response?.userHandle === 'string' ? Buffer.from(body.response.userHandle, 'base64url').toString('utf8') : '';
    if (/^\d+$/.test(handle) && Number(handle) !== user.id) throw new BusinessError(FAILED);
    return user;
  }

  /** Verifies an assertion against the stored credential and moves its counter forward. */
  private async check(req: Request, body: AuthenticationResponseJSON, challenge: string): Promise<PasskeyCredentialEntity> {
    if (typeof body?.id !== 'string' || body.id.length > 1024) throw new BusinessError('the passkey response is malformed');
    const row = await this.repo.findByCredentialId(b64.toStd(body.id));
    if (!row) throw new BusinessError(FAILED);
    const rp = relyingParty(this.options, req);
    const { verifyAuthenticationResponse } = await webauthn();
    let result: VerifiedAuthenticationResponse;
    try {
      result = await verifyAuthenticationResponse({
        response: body,
        expectedChallenge: challenge,
        expectedOrigin: rp.origins,
        expectedRPID: rp.rpID,
        credential: {
          id: b64.toUrl(row.credentialId),
          publicKey: new Uint8Array(Buffer.from(row.publicKey, 'base64')),
          counter: row.signCount,
          transports: transportsOf(row),
        },
        requireUserVerification: this.options.get('passkey.user_verification') === 'required',
      });
    } catch {
      throw new BusinessError(FAILED);
    }
    if (!result.verified) throw new BusinessError(FAILED);
    const info = result.authenticationInfo;
    const moved = await this.repo.recordUse(row.id, info.newCounter, {
      lastUsedAt: new Date(),
      userVerified: info.userVerified,
      backupState: info.credentialBackedUp,
    });
    if (!moved) throw new BusinessError(FAILED);
    return row;
  }

  private async liveUser(userId: number): Promise<UserEntity> {
    const user = await this.users.findById(userId);
    if (!user) throw new NotFoundError('user does not exist');
    return user;
  }

  /** Challenges are single use, 5 minutes, and bound to the user who asked (0 for a login). */
  private async remember(purpose: Purpose, challenge: string, userId: number): Promise<void> {
    await this.kv.set(`passkey:${purpose}:${challenge}`, String(userId), CHALLENGE_TTL_SECONDS);
  }

  private async consume(purpose: Purpose, challenge: string, userId: number): Promise<string> {
    const owner = challenge.length <= 512 ? await this.kv.take(`passkey:${purpose}:${challenge}`) : undefined;
    if (owner === undefined || Number(owner) !== userId) throw new BusinessError('the passkey request has expired, start again');
    return challenge;
  }
}
