/**
 * The gateway's DLP engine: the detectors of `@tollgate/policy/detectors`, compiled for a
 * policy, applied to every text a request carries (stage 7), and the rules its answer is
 * guarded by (stage 10). Passed to the gateway as `options.dlp.engine` — `createGateway` of
 * `@tollgate/core` always does; `@tollgate/core/minimal` only when given, so a bundle that
 * enforces no DLP carries none of it, and refuses to start on a policy that asks for DLP.
 */
import type { Request as IRRequest } from '@tollgate/codecs/base';
import { GatewayError } from '@tollgate/codecs/base';
import { decideDlp, type DlpAction, type DlpValidation, type Policy, type Principal } from '@tollgate/policy';
import {
  BUILTIN_DETECTORS,
  actionStrictness,
  compileCustom,
  findAll,
  foldForScan,
  redactionMarker,
  replaceFindings,
  resolveOverlaps,
  scanText,
  surrogateFor,
  type Detector,
  type Finding,
  type OutputAction,
  type OutputRules,
  type Recognizer,
} from '@tollgate/policy/detectors';
import type { AnswerDlp } from '../gateway/answer-guard.js';
import { mapRequestTexts, requestTexts } from '../gateway/ir-texts.js';
import type { DlpDeps } from '../gateway/policy-stage.js';
import { answerDlp } from './answer.js';
import { dlpStage, type DlpStageOptions } from './stage.js';

export interface DlpCount {
  action: DlpAction;
  count: number;
}

/** What request-side DLP did: the request to send, counts by entity, and how to guard the answer. */
export interface RequestDlpResult {
  ir: IRRequest;
  counts: Record<string, DlpCount>;
  /** The first entity whose action is `block`, when one was found. */
  blocked: string | null;
  /**
   * The first value the policy would redact or pseudonymize in a place that cannot be rewritten
   * without breaking the request (a tool name, a JSON key or number), and that place: such a
   * request is refused rather than sent with the value or broken.
   */
  unrewritable?: { entity: string; field: string } | null;
  /** For the answer: surrogates to restore, detectors to run; null when there is nothing to do. */
  output: OutputRules | null;
  /**
   * Some entity's action for this caller is not `allow`: the request's texts were scanned, and
   * what goes upstream must be encoded from the IR — never the client's own bytes, which may
   * carry fields the IR does not model and so were not scanned.
   */
  scanned: boolean;
}

export interface PreparedDlp {
  readonly entities: readonly string[];
  readonly detectors: ReadonlyMap<string, Detector>;
  readonly recognizers: readonly Recognizer[];
  readonly scanResponses: boolean;
}

export interface DlpEngine {
  /** Checks for `parsePolicy`: recognizer entities, custom-pattern compilation. */
  validation(recognizers: readonly Recognizer[]): DlpValidation;
  prepare(policy: Policy, recognizers: readonly Recognizer[]): PreparedDlp;
  apply(prepared: PreparedDlp, input: RequestDlpInput): Promise<RequestDlpResult>;
  /** The answer's guard from `RequestDlpResult.output`; `enforced` false (shadow mode) scans and counts, changes nothing. */
  guardAnswer(rules: OutputRules, enforced: boolean): AnswerDlp;
  /** Request-side DLP as one gateway runs it (its recognizers and surrogate key), failing closed. */
  stage(options: DlpStageOptions): DlpDeps;
}

export interface RequestDlpInput {
  policy: Policy;
  principal: Principal;
  ir: IRRequest;
  /** HMAC key surrogates are derived with. */
  key: CryptoKey;
  /** False in shadow mode: decide and count, change and refuse nothing. */
  enforce: boolean;
}

const DEFAULT_RECOGNIZER_TIMEOUT_MS = 2000;

function prepare(policy: Policy, recognizers: readonly Recognizer[]): PreparedDlp {
  const detectors = new Map<string, Detector>(Object.entries(BUILTIN_DETECTORS));
  for (const c of policy.dlp?.custom ?? []) {
    const compiled = compileCustom(c);
    if (!compiled.ok) throw new TypeError(`dlp.custom ${c.id}: ${compiled.message}`);
    detectors.set(c.id, compiled.detector);
  }
  const entities = new Set<string>(detectors.keys());
  for (const r of recognizers) for (const e of r.entities) entities.add(e);
  return { entities: [...entities], detectors, recognizers, scanResponses: policy.dlp?.scan_responses === true };
}

/** Run a recognizer on one text within its time, failing closed. */
async function recognize(r: Recognizer, text: string, active: ReadonlySet<string>): Promise<Finding[]> {
  const controller = new AbortController();
  const ms = r.timeoutMs ?? DEFAULT_RECOGNIZER_TIMEOUT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(
        new GatewayError('unavailable', 'A data-protection check did not complete in time; the request was not sent.', {
          detail: `recognizer ${r.id} timed out after ${ms} ms`,
        }),
      );
    }, ms);
  });
  try {
    const found = await Promise.race([Promise.resolve().then(() => r.recognize(text, { signal: controller.signal })), timeout]);
    const out: Finding[] = [];
    for (const f of found) {
      if (!active.has(f.entity)) continue;
      if (!(Number.isInteger(f.start) && Number.isInteger(f.end) && f.start >= 0 && f.end > f.start && f.end <= text.length)) {
        throw new GatewayError('unavailable', 'A data-protection check failed; the request was not sent.', {
          detail: `recognizer ${r.id} returned a span outside the text`,
        });
      }
      out.push({ entity: f.entity, start: f.start, end: f.end });
    }
    return out;
  } catch (cause) {
    if (GatewayError.isInstance(cause)) throw cause;
    throw new GatewayError('unavailable', 'A data-protection check failed; the request was not sent.', { cause, detail: `recognizer ${r.id} failed` });
  } finally {
    clearTimeout(timer);
  }
}

const encoder = new TextEncoder();

async function seedFor(key: CryptoKey, entity: string, value: string, attempt: number): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(`${entity}\u0000${attempt}\u0000${value}`)));
}

async function apply(prepared: PreparedDlp, input: RequestDlpInput): Promise<RequestDlpResult> {
  const decision = decideDlp({ policy: input.policy, principal: input.principal, entities: prepared.entities });
  const active = new Set(prepared.entities.filter((e) => decision.actions[e] !== 'allow'));
  if (active.size === 0) return { ir: input.ir, counts: {}, blocked: null, output: null, scanned: false };
  const detectors = [...active].flatMap((e) => {
    const d = prepared.detectors.get(e);
    return d === undefined ? [] : [d];
  });
  const recognizers = prepared.recognizers.filter((r) => r.entities.some((e) => active.has(e)));

  // 1. Find, in every text (recognizers run concurrently, each within its time). Where findings
  // overlap, the stricter action wins: a value the policy blocks is never hidden by a logged one.
  const strictness = (entity: string): number => actionStrictness(decision.actions[entity] ?? 'allow');
  const visited = requestTexts(input.ir);
  const texts = visited.map((v) => v.text);
  const findings: Finding[][] = await Promise.all(
    texts.map(async (text) => {
      if (text.length === 0) return [];
      if (recognizers.length === 0) return scanText(text, detectors, strictness);
      const more = await Promise.all(recognizers.map((r) => recognize(r, text, active)));
      return resolveOverlaps([...findAll(text, detectors), ...more.flat()], strictness);
    }),
  );

  // 2. Decide and count.
  const counts: Record<string, DlpCount> = {};
  let blocked: string | null = null;
  let unrewritable: { entity: string; field: string } | null = null;
  const pseudonyms = new Map<string, string>(); // `${entity}\0${value}` → surrogate
  for (let t = 0; t < texts.length; t++) {
    const field = visited[t]!.field;
    for (const f of findings[t]!) {
      const action = decision.actions[f.entity] ?? 'allow';
      if (action === 'allow') continue;
      const c = (counts[f.entity] ??= { action, count: 0 });
      c.count++;
      if (action === 'block' && blocked === null) blocked = f.entity;
      if (action !== 'redact' && action !== 'pseudonymize') continue;
      // A tool name, JSON key or number: rewriting it could break the request (a call naming a
      // tool that is no longer declared, a schema's `required` naming a renamed key, a marker
      // where a number must be), so the request is refused instead.
      if (field !== undefined) unrewritable ??= { entity: f.entity, field };
      else if (action === 'pseudonymize') pseudonyms.set(`${f.entity}\u0000${texts[t]!.slice(f.start, f.end)}`, '');
    }
  }
  // The answer's rules: restore what was pseudonymized; with scan_responses, run the detectors.
  const outputDetectors = prepared.scanResponses ? detectors : [];
  const outputAction = (entity: string): OutputAction => {
    const a = decision.actions[entity] ?? 'allow';
    return a === 'block' ? 'block' : a === 'redact' || a === 'pseudonymize' ? 'redact' : 'log';
  };
  if ((blocked !== null || unrewritable !== null) && input.enforce) return { ir: input.ir, counts, blocked, unrewritable, output: null, scanned: true };
  if (!input.enforce) {
    // Shadow mode changes nothing: the request goes as sent; the answer is scanned and counted.
    const output =
      outputDetectors.length === 0 ? null : { restore: new Map<string, string>(), detectors: outputDetectors, action: outputAction, marker: redactionMarker };
    return { ir: input.ir, counts, blocked, unrewritable, output, scanned: false };
  }

  // 3. Surrogates: one per value, distinct from every value and every other surrogate.
  const restore = new Map<string, string>();
  const values = new Set([...pseudonyms.keys()].map((k) => k.slice(k.indexOf('\u0000') + 1)));
  for (const k of pseudonyms.keys()) {
    const sep = k.indexOf('\u0000');
    const entity = k.slice(0, sep);
    const value = k.slice(sep + 1);
    // A disguised value (full-width digits, zero-width spaces) is made over from what it reads as.
    const plain = foldForScan(value);
    let surrogate = value;
    for (let attempt = 0; attempt < 16 && (surrogate === value || surrogate === plain || values.has(surrogate) || restore.has(surrogate)); attempt++) {
      surrogate = surrogateFor(entity, plain, await seedFor(input.key, entity, value, attempt));
    }
    pseudonyms.set(k, surrogate);
    restore.set(surrogate, value);
  }

  // 4. Rewrite, in the same order the texts were read.
  let t = 0;
  const ir = mapRequestTexts(input.ir, (text) => {
    const found = findings[t++] ?? [];
    if (found.length === 0) return text;
    return replaceFindings(text, found, (f, value) => {
      const action = decision.actions[f.entity];
      if (action === 'redact') return redactionMarker(f.entity);
      if (action === 'pseudonymize') return pseudonyms.get(`${f.entity}\u0000${value}`) ?? redactionMarker(f.entity);
      return null;
    });
  });

  // 5. The answer's rules.
  const output: OutputRules | null =
    restore.size === 0 && outputDetectors.length === 0 ? null : { restore, detectors: outputDetectors, action: outputAction, marker: redactionMarker };
  return { ir, counts, blocked, unrewritable: null, output, scanned: true };
}

const prepared = new WeakMap<Policy, WeakMap<readonly Recognizer[], PreparedDlp>>();

/** The DLP engine (`options.dlp.engine`). */
export const dlpEngine: DlpEngine = {
  validation(recognizers) {
    return { entities: recognizers.flatMap((r) => r.entities), compile: compileCustom };
  },
  prepare(policy, recognizers) {
    let inner = prepared.get(policy);
    if (inner === undefined) prepared.set(policy, (inner = new WeakMap()));
    let p = inner.get(recognizers);
    if (p === undefined) inner.set(recognizers, (p = prepare(policy, recognizers)));
    return p;
  },
  apply,
  guardAnswer: answerDlp,
  stage(options) {
    return dlpStage(dlpEngine, options);
  },
};
