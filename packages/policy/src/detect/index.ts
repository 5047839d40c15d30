/**
 * `@tollgate/policy/detectors`: the DLP detectors — pure, linear-time, edge-safe — and the
 * pieces the gateway builds DLP from: scanning, redaction, format-preserving surrogates and the
 * output guard that restores them in an answer, streamed or whole. A separate entry point, so a
 * bundle that enforces no DLP carries none of it (nor the RE2 engine custom patterns use).
 */
import { BUILTIN_DLP_ENTITIES, type BuiltinDlpEntity } from '../dlp-entities.js';
import { email } from './email.js';
import { ipv6 } from './ipv6.js';
import { iban } from './iban.js';
import { creditCard, ipv4, phone, usSsn } from './numeric.js';
import { secret } from './secret.js';
import type { Detector } from './types.js';

export type { Detector, Finding, Recognizer } from './types.js';
export { BUILTIN_DLP_ENTITIES, type BuiltinDlpEntity };
export { email, ipv6, iban, creditCard, ipv4, phone, usSsn, secret };
export { compileCustom, DEFAULT_CUSTOM_MAX_LENGTH, type CustomPattern } from './custom.js';
export { actionStrictness, findAll, redactionMarker, replaceFindings, resolveOverlaps, scanText } from './scan.js';
export { createPrng, surrogateFor } from './surrogate.js';
export { foldForScan } from './normalize.js';
export { OutputGuard, type OutputAction, type OutputRules } from './guard.js';
export { luhnValid } from './chars.js';
export { ibanValid } from './iban.js';

/** Every built-in detector, by entity type. */
export const BUILTIN_DETECTORS: Readonly<Record<BuiltinDlpEntity, Detector>> = {
  email,
  phone,
  credit_card: creditCard,
  iban,
  us_ssn: usSsn,
  ipv4,
  ipv6,
  secret,
};
