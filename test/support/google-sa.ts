/**
 * A Google service account for tests: a real RSA key pair (jose), its JSON key pointing at a
 * loopback token endpoint, and that endpoint, which verifies each JWT grant (signature with the
 * public key, issuer, audience, scope, one-hour lifetime, key id) and mints opaque tokens.
 */
import { exportPKCS8, generateKeyPair, jwtVerify, type CryptoKey } from 'jose';

export interface TestServiceAccount {
  /** The JSON key, as the secret holds it. */
  keyJson: string;
  clientEmail: string;
  privateKeyId: string;
  publicKey: CryptoKey;
}

export async function testServiceAccount(tokenUri: string): Promise<TestServiceAccount> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const pem = await exportPKCS8(privateKey);
  const clientEmail = 'tollgate-test@acme-prod.iam.gserviceaccount.com';
  const privateKeyId = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
  const keyJson = JSON.stringify({
    type: 'service_account',
    project_id: 'acme-prod',
    private_key_id: privateKeyId,
    private_key: pem,
    client_email: clientEmail,
    client_id: '100000000000000000001',
    token_uri: tokenUri,
  });
  return { keyJson, clientEmail, privateKeyId, publicKey };
}

export interface GrantCheck {
  ok: boolean;
  reason?: string;
  scope?: string;
}

/** Verify a JWT bearer grant (form body) as Google's token endpoint does. */
export async function checkGrant(form: string, account: TestServiceAccount, audience: string): Promise<GrantCheck> {
  const params = new URLSearchParams(form);
  if (params.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return { ok: false, reason: 'grant_type' };
  const assertion = params.get('assertion');
  if (assertion === null) return { ok: false, reason: 'no assertion' };
  try {
    const { payload, protectedHeader } = await jwtVerify(assertion, account.publicKey, { issuer: account.clientEmail, audience, algorithms: ['RS256'] });
    if (protectedHeader.kid !== account.privateKeyId) return { ok: false, reason: 'kid' };
    if (payload.exp! - payload.iat! !== 3600) return { ok: false, reason: 'lifetime' };
    return { ok: true, scope: String(payload['scope']) };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
