import { codecs } from '@tollgate/codecs';
import { dlpEngine } from '../dlp/engine.js';
import { jwtEngine } from '../identity/jwt.js';
import { openTelemetry } from '../telemetry/engine.js';
import { createGateway as createWithCodecs } from './create.js';
import type { Gateway, GatewayOptions } from './options.js';

/**
 * Create a gateway: the governed pipeline from `Request` to `Response`. It speaks every wire
 * format unless `options.codecs` lists fewer, so every codec is in a bundle that uses it; to
 * bundle only some formats, use `createGateway` from `@tollgate/core/minimal`. DLP, JWT
 * verification and OpenTelemetry are wired in (the minimal entry takes them only when given). Refuses to start
 * (throws `GatewayConfigError` listing every violation) on an invalid registry, policy or
 * identity configuration.
 */
export function createGateway(options: GatewayOptions): Gateway {
  return createWithCodecs({
    ...options,
    codecs: options.codecs ?? Object.values(codecs),
    dlp: { ...options.dlp, engine: options.dlp?.engine ?? dlpEngine },
    jwt: { ...options.jwt, engine: options.jwt?.engine ?? jwtEngine },
    telemetry: options.telemetry === false ? false : { ...options.telemetry, engine: options.telemetry?.engine ?? openTelemetry },
  });
}
