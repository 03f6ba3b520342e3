/**
 * Passkeys in the browser: the gateway sends WebAuthn options as JSON with base64url binary fields
 * (`{options: {publicKey}}`, new-api's shape); the browser API wants ArrayBuffers, and the answer goes
 * back as JSON with base64url fields again.
 */

const fromB64url = (value: string): ArrayBuffer => {
  const base64 = value
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(value.length / 4) * 4, '=');
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return bytes.buffer;
};

const toB64url = (buffer: ArrayBuffer | null | undefined): string | undefined => {
  if (!buffer) return undefined;
  let text = '';
  for (const byte of new Uint8Array(buffer)) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};

interface DescriptorJson {
  id: string;
  type: 'public-key';
  transports?: AuthenticatorTransport[];
}

/** `register/begin`'s `options.publicKey`. */
export interface PasskeyCreationJson extends Omit<PublicKeyCredentialCreationOptions, 'challenge' | 'user' | 'excludeCredentials'> {
  challenge: string;
  user: { id: string; name: string; displayName: string };
  excludeCredentials?: DescriptorJson[];
}

/** `login/begin` and `verify/begin`'s `options.publicKey`. */
export interface PasskeyRequestJson extends Omit<PublicKeyCredentialRequestOptions, 'challenge' | 'allowCredentials'> {
  challenge: string;
  allowCredentials?: DescriptorJson[];
}

type Json = Record<string, unknown>;

export function passkeySupported(): boolean {
  return typeof window !== 'undefined' && !!window.PublicKeyCredential && !!navigator.credentials;
}

/** Registers a new passkey from `register/begin`'s options; returns the JSON for `register/finish`. */
export async function createPasskey(options: { publicKey: PasskeyCreationJson }): Promise<Json> {
  const pk = options.publicKey;
  const publicKey: PublicKeyCredentialCreationOptions = {
    ...pk,
    challenge: fromB64url(pk.challenge),
    user: { ...pk.user, id: fromB64url(pk.user.id) },
    excludeCredentials: (pk.excludeCredentials ?? []).map((c) => ({ ...c, id: fromB64url(c.id) })),
  };
  const credential = (await navigator.credentials.create({ publicKey })) as PublicKeyCredential | null;
  if (!credential) throw new Error('no passkey was created');
  const response = credential.response as AuthenticatorAttestationResponse;
  return {
    id: credential.id,
    rawId: toB64url(credential.rawId),
    type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
    response: {
      clientDataJSON: toB64url(response.clientDataJSON),
      attestationObject: toB64url(response.attestationObject),
      transports: typeof response.getTransports === 'function' ? response.getTransports() : [],
    },
  };
}

/** Signs `login/begin` or `verify/begin`'s challenge; returns the JSON for the matching `finish`. */
export async function getPasskey(options: { publicKey: PasskeyRequestJson }): Promise<Json> {
  const pk = options.publicKey;
  const publicKey: PublicKeyCredentialRequestOptions = {
    ...pk,
    challenge: fromB64url(pk.challenge),
    allowCredentials: (pk.allowCredentials ?? []).map((c) => ({ ...c, id: fromB64url(c.id) })),
  };
  const credential = (await navigator.credentials.get({ publicKey })) as PublicKeyCredential | null;
  if (!credential) throw new Error('no passkey was chosen');
  const response = credential.response as AuthenticatorAssertionResponse;
  return {
    id: credential.id,
    rawId: toB64url(credential.rawId),
    type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
    response: {
      clientDataJSON: toB64url(response.clientDataJSON),
      authenticatorData: toB64url(response.authenticatorData),
      signature: toB64url(response.signature),
      userHandle: toB64url(response.userHandle),
    },
  };
}
