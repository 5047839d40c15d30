/**
 * Request-side DLP as the gateway runs it (stage 7), for one gateway: the engine prepared for
 * the policy, the surrogate key, failing closed, and the answer's guard.
 */
import { GatewayError } from '@tollgate/codecs/base';
import type { Recognizer } from '@tollgate/policy/detectors';
import type { DlpDeps } from '../gateway/policy-stage.js';
import type { Policy } from '@tollgate/policy';
import type { DlpEngine, PreparedDlp } from './engine.js';

export interface DlpStageOptions {
  recognizers: readonly Recognizer[];
  /** The secret surrogates are derived from; default a random key per gateway. */
  key?: string | undefined;
}

/** The surrogate key: from the secret, else random; made on first use (Workers allow no randomness at start). */
function surrogateKey(secret: string | undefined): () => Promise<CryptoKey> {
  let key: Promise<CryptoKey> | undefined;
  return () =>
    (key ??= crypto.subtle.importKey(
      'raw',
      secret === undefined ? crypto.getRandomValues(new Uint8Array(32)) : new TextEncoder().encode(secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    ));
}

/**
 * A policy whose DLP names no action (no `default`, no `use_cases`) lets every entity through
 * for everyone: the request goes as it is, nothing is counted, the answer is not guarded.
 */
function inert(policy: Policy): boolean {
  const d = policy.dlp;
  if (d === undefined) return true;
  return (d.default === undefined || Object.keys(d.default).length === 0) && (d.use_cases === undefined || d.use_cases.length === 0);
}

export function dlpStage(engine: DlpEngine, options: DlpStageOptions): DlpDeps {
  const key = surrogateKey(options.key);
  // Prepared once per policy revision (a reload replaces the policy object), not per request.
  const preparedFor = new WeakMap<Policy, PreparedDlp>();
  return {
    async run({ policy, principal, ir, ctx }) {
      const enforce = (policy.enforcement ?? 'enforce') !== 'shadow';
      let result;
      try {
        if (inert(policy)) return { ok: true, ir, reencode: false, output: null };
        let prepared = preparedFor.get(policy);
        if (prepared === undefined) {
          prepared = engine.prepare(policy, options.recognizers);
          preparedFor.set(policy, prepared);
        }
        result = await engine.apply(prepared, { policy, principal, ir, key: await key(), enforce });
      } catch (error) {
        const e = GatewayError.isInstance(error)
          ? error
          : new GatewayError('unavailable', 'A data-protection check could not complete; the request was not sent.', { cause: error });
        return { ok: false, error: e, reason: 'dlp_unavailable' };
      }
      ctx.dlp = result.counts;
      if (result.blocked !== null) {
        const reason = `dlp_block:${result.blocked}`;
        if (enforce) {
          return {
            ok: false,
            error: new GatewayError('invalid_request', `The request contains data the policy does not let leave (${result.blocked}); it was not sent.`),
            reason,
          };
        }
        if (!ctx.wouldBlock.includes(reason)) ctx.wouldBlock.push(reason);
      }
      const unrewritable = result.unrewritable ?? null;
      if (result.blocked === null && unrewritable !== null) {
        const reason = `dlp_unrewritable:${unrewritable.entity}`;
        if (enforce) {
          return {
            ok: false,
            error: new GatewayError(
              'invalid_request',
              `The request contains data the policy rewrites (${unrewritable.entity}) in ${unrewritable.field}, which cannot be rewritten without breaking the request; it was not sent.`,
            ),
            reason,
          };
        }
        if (!ctx.wouldBlock.includes(reason)) ctx.wouldBlock.push(reason);
      }
      return { ok: true, ir: result.ir, reencode: result.scanned, output: result.output === null ? null : engine.guardAnswer(result.output, enforce) };
    },
  };
}
