import { codecs } from '@tollgate/codecs';
import { awsSigV4Signer } from './aws-sigv4.js';
import { contentEngine } from '../content/engine.js';
import { dlpEngine } from '../dlp/engine.js';
import { jwtEngine } from '../identity/jwt.js';
import { openTelemetry } from '../telemetry/engine.js';
import { createGateway as createWithCodecs } from './create.js';
import { googleServiceAccountSigner } from './google-service-account.js';
import { operationKinds } from './kinds.js';
import type { Gateway, GatewayOptions } from './options.js';

/**
 * Create a gateway: the governed pipeline from `Request` to `Response`. It speaks every wire
 * format unless `options.codecs` lists fewer, so every codec is in a bundle that uses it; to
 * bundle only some formats, use `createGateway` from `@tollgate/core/minimal`. It brings every
 * upstream signer (AWS SigV4, Google service accounts) unless `options.signers` lists others,
 * what serves token counting and embeddings routes (`operationKinds`), tool allow lists and
 * policy prompts, DLP, JWT verification
 * and OpenTelemetry (the minimal entry takes each only when given). Refuses to start
 * (throws `GatewayConfigError` listing every violation) on an invalid registry, policy or
 * identity configuration.
 */
export function createGateway(options: GatewayOptions): Gateway {
  return createWithCodecs({
    ...options,
    codecs: options.codecs ?? Object.values(codecs),
    signers: options.signers ?? [awsSigV4Signer, googleServiceAccountSigner],
    kinds: options.kinds ?? operationKinds,
    dlp: { ...options.dlp, engine: options.dlp?.engine ?? dlpEngine },
    content: { ...options.content, engine: options.content?.engine ?? contentEngine },
    jwt: { ...options.jwt, engine: options.jwt?.engine ?? jwtEngine },
    telemetry: options.telemetry === false ? false : { ...options.telemetry, engine: options.telemetry?.engine ?? openTelemetry },
  });
}
