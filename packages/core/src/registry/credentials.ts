import type { Credential } from './types.js';

/** The names of the secrets a credential reads (to resolve, check at start, or drop after a 401/403). */
export function credentialSecrets(credential: Credential): string[] {
  if (credential.kind === 'aws_sigv4') {
    const names = [credential.accessKeyId, credential.secretAccessKey];
    if (credential.sessionToken !== null) names.push(credential.sessionToken);
    return names;
  }
  return [credential.secret];
}
