import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/**
 * A software WebAuthn authenticator (ES256, "none" attestation) for e2e tests: it answers the
 * gateway's registration and authentication options exactly as a browser with a platform passkey
 * would serialise them (base64url JSON), so the server side runs its real verification.
 */
export class SoftAuthenticator {
  private readonly credentials: { id: Buffer; key: KeyObject; rpId: string; userHandle: string; counter: number }[] = [];

  constructor(readonly origin: string) {}

  get credentialIds(): string[] {
    return this.credentials.map((c) => c.id.toString('base64url'));
  }

  /** navigator.credentials.create(): answers `{options:{publicKey}}` from register/begin. */
  create(publicKey: any, opts: { counter?: number } = {}) {
    const { privateKey, publicKey: pub } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = pub.export({ format: 'jwk' });
    const cose = new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))],
      [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))],
    ]);
    const id = randomBytes(32);
    const rpId = publicKey.rp.id as string;
    const counter = opts.counter ?? 0;
    const attested = Buffer.concat([Buffer.alloc(16), u16(id.length), id, Buffer.from(isoCBOR.encode(cose as any))]);
    // Flags: user present, user verified, attested credential data.
    const authData = Buffer.concat([sha256(rpId), Buffer.from([0x01 | 0x04 | 0x40]), u32(counter), attested]);
    const clientData = this.clientData('webauthn.create', publicKey.challenge);
    const attestationObject = Buffer.from(
      isoCBOR.encode(
        new Map<string, unknown>([
          ['fmt', 'none'],
          ['attStmt', new Map()],
          ['authData', new Uint8Array(authData)],
        ]) as any,
      ),
    );
    this.credentials.push({ id, key: privateKey, rpId, userHandle: publicKey.user.id, counter });
    return {
      id: id.toString('base64url'),
      rawId: id.toString('base64url'),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON: clientData.toString('base64url'),
        attestationObject: attestationObject.toString('base64url'),
        transports: ['internal'],
      },
    };
  }

  /** navigator.credentials.get(): signs the challenge with the first allowed (or any) credential. */
  get(publicKey: any, opts: { counter?: number; credentialId?: string } = {}) {
    const allowed: string[] = (publicKey.allowCredentials ?? []).map((c: { id: string }) => c.id);
    const credential = this.credentials.find(
      (c) =>
        c.rpId === publicKey.rpId &&
        (!allowed.length || allowed.includes(c.id.toString('base64url'))) &&
        (!opts.credentialId || opts.credentialId === c.id.toString('base64url')),
    );
    if (!credential) throw new Error('no matching credential on the soft authenticator');
    credential.counter = opts.counter ?? credential.counter + 1;
    const authData = Buffer.concat([sha256(credential.rpId), Buffer.from([0x01 | 0x04]), u32(credential.counter)]);
    const clientData = this.clientData('webauthn.get', publicKey.challenge);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), credential.key);
    return {
      id: credential.id.toString('base64url'),
      rawId: credential.id.toString('base64url'),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON: clientData.toString('base64url'),
        authenticatorData: authData.toString('base64url'),
        signature: signature.toString('base64url'),
        userHandle: credential.userHandle,
      },
    };
  }

  private clientData(type: string, challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest();
const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
};
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
