/**
 * DLP on the answer (stage 10), driven by what request-side DLP decided (`OutputRules`):
 * surrogates are restored and, with `dlp.scan_responses`, the answer's text, tool-call
 * arguments and the fields it carries beside its content are scanned. Whole answers are
 * guarded at once; streams event by event, holding back only the DLP window of the text —
 * across consecutive text blocks, which a client may receive joined — and, when the answer is
 * scanned, a tool call's own arguments until the call ends.
 * Part of the DLP engine, so a gateway without it bundles none of this.
 */
import { GatewayError, type Response as IRResponse, type StreamEvent, type AssistantContentPart } from '@tollgate/codecs/base';
import { OutputGuard, type OutputRules } from '@tollgate/policy/detectors';
import type { AnswerDlp } from '../gateway/answer-guard.js';
import type { RequestContext } from '../gateway/context.js';
import { OPAQUE_KEYS, mapJson, type Opaque } from '../gateway/ir-texts.js';

/**
 * Vendor fields that hold the answer's text split into tokens (log-probabilities): a value
 * split over tokens cannot be judged, so with response scanning they are not relayed.
 */
const TOKEN_FIELDS = new Set(['logprobs', 'top_logprobs', 'logprobsResult', 'avgLogprobs']);

/** `fields` without the token-level ones, at any depth (the same object when there are none). */
function withoutTokens(value: unknown): unknown {
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const r = withoutTokens(v);
      if (r !== v) changed = true;
      return r;
    });
    return changed ? out : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (TOKEN_FIELDS.has(k)) {
      changed = true;
      continue;
    }
    const r = withoutTokens(v);
    if (r !== v) changed = true;
    out[k] = r;
  }
  return changed ? out : value;
}

/** Keys whose values are encoded: base64 media and audio, signatures, encrypted reasoning. */
const BLOB_KEYS: ReadonlySet<string> = new Set(['data', 'file_data', 'encrypted_content', 'signature', 'thought_signature', 'thoughtSignature', 'image_url']);
/** An enum value (`url_citation`, `completed`, `assistant`): lower-case letters, no digit. */
const ENUM_WORD = /^[a-z][a-z_]*$/;
/** Base64 or base64url, or a base64 data URL, as encoded blobs are sent. */
const BASE64 = /^(?:data:[a-z]+\/[\w.+-]+;base64,)?[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * What of an answer's extras is not read: a value under an opaque key (`OPAQUE_KEYS`) only when
 * it looks opaque — an enum word, or under a blob key an encoded blob of at least 64
 * characters (DLP does not decode encodings). Anything else there is read like any text: an
 * upstream can put `SSN 536-22-1234` in an annotation's `id` or `data`, and an id is short.
 */
const ANSWER_OPAQUE: Opaque = {
  has(key, value) {
    if (!OPAQUE_KEYS.has(key) || typeof value !== 'string') return false;
    if (ENUM_WORD.test(value)) return true;
    return BLOB_KEYS.has(key) && value.length >= 64 && BASE64.test(value);
  },
};

const noRestore: OutputRules = { restore: new Map(), detectors: [], action: () => 'log', marker: () => '' };

function dlpRefusal(ctx: RequestContext, entity: string): GatewayError {
  ctx.guardReason = `dlp_block:${entity}`;
  return new GatewayError('upstream_error', `The model's answer contained data the policy does not let through (${entity}); it was withheld.`);
}

/** Record what an output guard found, with the policy's action (in shadow mode, what it would have done). */
function count(ctx: RequestContext, rules: OutputRules, guard: OutputGuard): void {
  for (const [entity, n] of guard.counts) {
    const a = rules.action(entity);
    const c = (ctx.dlpResponse[entity] ??= { action: a, count: 0 });
    c.count += n;
    if (a === 'block' && guard.blocked === null && !ctx.wouldBlock.includes(`dlp_block:${entity}`)) ctx.wouldBlock.push(`dlp_block:${entity}`);
  }
}

interface OpenBlock {
  kind: 'text' | 'reasoning' | 'tool_call' | 'other';
  guard: OutputGuard | null;
  rules: OutputRules | null;
  /**
   * A tool call's arguments, held until the call ends when the answer is scanned (so a value is
   * judged whole); null otherwise — restoring alone streams them through the guard.
   */
  args: string | null;
}

/**
 * Consecutive text blocks, read through one guard: a client in another format may receive them
 * joined (an Anthropic answer's text blocks are one OpenAI Chat string), so a value split over
 * a block boundary must be found. What the guard holds at a block's end stays held, with the
 * block's stop, until what follows has been judged — at most the guard's window.
 */
interface TextRun {
  guard: OutputGuard;
  rules: OutputRules;
  /** Oldest first: the first one's start has gone out; each later one's start waits for the text before it. */
  blocks: Array<{ index: number; start: StreamEvent; stop: StreamEvent | null }>;
  /** Other events that arrived while a boundary was held: handed on once it is passed. */
  later: StreamEvent[];
}

const isText = (event: StreamEvent): event is Extract<StreamEvent, { type: 'block_start' }> =>
  event.type === 'block_start' && (event.block.kind === 'text' || event.block.kind === 'refusal');

/**
 * The answer side of DLP for one request. `enforced` false (shadow mode): the answer is
 * scanned and counted, never changed or withheld.
 */
export function answerDlp(rules: OutputRules, enforced: boolean): AnswerDlp {
  /** What the output guard runs with: in shadow mode every action is `log` (found and counted only). */
  const acting = (r: OutputRules): OutputRules => (enforced ? r : { ...r, action: () => 'log' });

  function response(answer: IRResponse, ctx: RequestContext): { response: IRResponse } | { error: GatewayError } {
    let changed = false;
    const content: AssistantContentPart[] = [...answer.content];
    // A client may get the answer's text parts joined (OpenAI Chat's one `content` string, whatever
    // lies between them), so the texts — and the refusals — are each judged as one: a value split
    // over parts is found, and goes restored or redacted into the part it starts in.
    for (const type of ['text', 'refusal'] as const) {
      const at: number[] = [];
      const texts: string[] = [];
      answer.content.forEach((p, i) => {
        if (p.type === type) {
          at.push(i);
          texts.push(p.text);
        }
      });
      if (texts.length === 0) continue;
      const g = new OutputGuard(acting(rules));
      const out = g.wholeParts(texts);
      count(ctx, rules, g);
      if (g.blocked !== null) return { error: dlpRefusal(ctx, g.blocked) };
      at.forEach((i, k) => {
        const p = content[i]!;
        if ((p.type === 'text' || p.type === 'refusal') && out[k] !== p.text) {
          content[i] = { ...p, text: out[k]! };
          changed = true;
        }
      });
    }
    for (let i = 0; i < content.length; i++) {
      const p = content[i]!;
      if (p.type === 'reasoning') {
        // Reasoning is restored, never scanned: it is signed as the model wrote it.
        const r = { ...noRestore, restore: rules.restore };
        const g = new OutputGuard(r);
        const text = g.whole(p.text);
        if (text !== p.text) {
          content[i] = { ...p, text };
          changed = true;
        }
      } else if (p.type === 'tool_call') {
        const g = new OutputGuard(acting(rules), true);
        const args = g.whole(p.arguments);
        count(ctx, rules, g);
        if (g.blocked !== null) return { error: dlpRefusal(ctx, g.blocked) };
        if (args !== p.arguments) {
          content[i] = { ...p, arguments: args };
          changed = true;
        }
      }
    }
    // What the answer carries beside its content for the client's own format (Responses output
    // items the IR does not model, request echoes, annotations, grounding): restored and scanned too.
    let vendor = answer.vendor;
    if (vendor !== undefined) {
      const scanning = rules.detectors.length > 0;
      let blocked: string | null = null;
      const fields = mapJson(
        scanning ? withoutTokens(vendor.fields) : vendor.fields,
        (text) => {
          if (blocked !== null) return text;
          const g = new OutputGuard(acting(rules));
          const out = g.whole(text);
          count(ctx, rules, g);
          blocked = g.blocked;
          return out;
        },
        ANSWER_OPAQUE,
      ) as Record<string, unknown>;
      if (blocked !== null) return { error: dlpRefusal(ctx, blocked) };
      if (fields !== vendor.fields) {
        vendor = { ...vendor, fields };
        changed = true;
      }
    }
    if (!changed) return { response: answer };
    const out: IRResponse = { ...answer, content };
    if (vendor !== undefined) out.vendor = vendor;
    return { response: out };
  }

  function stream(ctx: RequestContext): (event: StreamEvent, emit: (event: StreamEvent) => void) => void {
    const blocks = new Map<number, OpenBlock>();
    let stopped = false;
    const refuse = (error: GatewayError, emit: (e: StreamEvent) => void) => {
      stopped = true;
      emit({ type: 'error', error: { code: error.code, status: error.status, message: error.message } });
    };
    /** End a block's guard: what it held goes out before the block ends. */
    const close = (index: number, b: OpenBlock, emit: (e: StreamEvent) => void): boolean => {
      blocks.delete(index);
      if (b.guard === null || b.rules === null) return true;
      if (b.kind === 'tool_call' && b.args !== null) {
        const args = b.guard.whole(b.args);
        count(ctx, b.rules, b.guard);
        if (b.guard.blocked !== null) return (refuse(dlpRefusal(ctx, b.guard.blocked), emit), false);
        if (args.length > 0) emit({ type: 'tool_args_delta', index, delta: args });
        return true;
      }
      const rest = b.guard.end();
      count(ctx, b.rules, b.guard);
      if (b.guard.blocked !== null) return (refuse(dlpRefusal(ctx, b.guard.blocked), emit), false);
      if (rest.length > 0)
        emit(
          b.kind === 'tool_call'
            ? { type: 'tool_args_delta', index, delta: rest }
            : b.kind === 'reasoning'
              ? { type: 'reasoning_delta', index, text: rest }
              : { type: 'text_delta', index, text: rest },
        );
      return true;
    };
    let run: TextRun | null = null;
    /** Hand on what a run's guard let go: one piece per block whose text is over (then its stop and the next one's start), then the current one's. */
    const hand = (r: TextRun, pieces: readonly string[], emit: (e: StreamEvent) => void): void => {
      pieces.forEach((text, k) => {
        const b = r.blocks[0];
        if (b === undefined) return; // after the last block's stop: always ''
        if (text.length > 0) emit({ type: 'text_delta', index: b.index, text });
        if (k < pieces.length - 1) {
          emit(b.stop!);
          r.blocks.shift();
          if (r.blocks[0] !== undefined) emit(r.blocks[0].start);
        }
      });
    };
    /** Hand on, in order, the events a run held back behind a boundary (once it is passed or the run is over). */
    const release = (r: TextRun, emit: (e: StreamEvent) => void): void => {
      const later = r.later;
      r.later = [];
      for (const e of later) handle(e, emit);
    };
    /** End the run: everything held goes out, with the stops of its blocks that are over. */
    const flush = (emit: (e: StreamEvent) => void): boolean => {
      const r = run!;
      run = null;
      const pieces = r.guard.endParts();
      count(ctx, r.rules, r.guard);
      if (r.guard.blocked !== null) return (refuse(dlpRefusal(ctx, r.guard.blocked), emit), false);
      hand(r, pieces, emit);
      release(r, emit);
      return !stopped;
    };
    const handle = (event: StreamEvent, emit: (e: StreamEvent) => void): void => {
      if (stopped) return;
      if (run !== null) {
        const r = run;
        const last = r.blocks[r.blocks.length - 1]!;
        if (last.stop !== null) {
          // The run's last block is over but its end is held: a text block next continues it.
          if (isText(event)) return void r.blocks.push({ index: event.index, start: event, stop: null });
          if (!flush(emit)) return;
        } else if (event.type === 'text_delta' && event.index === last.index) {
          const pieces = r.guard.pushParts(event.text);
          if (r.guard.blocked !== null) {
            count(ctx, r.rules, r.guard);
            return refuse(dlpRefusal(ctx, r.guard.blocked), emit);
          }
          hand(r, pieces, emit);
          if (r.blocks.length === 1) release(r, emit);
          return;
        } else if (event.type === 'block_stop' && event.index === last.index) {
          // Held back: the next block may continue this text. Nothing held: it is over (and so is every one before it).
          if (r.guard.carry()) return void (last.stop = event);
          run = null;
          count(ctx, r.rules, r.guard);
          return emit(event);
        } else if (event.type === 'error' || event.type === 'message_stop') {
          if (!flush(emit)) return;
        } else if (r.blocks.length > 1) {
          return void r.later.push(event);
        }
      }
      switch (event.type) {
        case 'block_start': {
          const kind =
            event.block.kind === 'tool_call'
              ? 'tool_call'
              : event.block.kind === 'reasoning'
                ? 'reasoning'
                : event.block.kind === 'text' || event.block.kind === 'refusal'
                  ? 'text'
                  : 'other';
          if (kind === 'text' && run === null) {
            run = { guard: new OutputGuard(acting(rules)), rules, blocks: [{ index: event.index, start: event, stop: null }], later: [] };
            return emit(event);
          }
          let r: OutputRules | null = null;
          if (kind !== 'other') r = kind === 'reasoning' ? { ...noRestore, restore: rules.restore } : rules;
          const held = kind === 'tool_call' && r !== null && r.detectors.length > 0;
          blocks.set(event.index, { kind, rules: r, guard: r === null ? null : new OutputGuard(acting(r), kind === 'tool_call'), args: held ? '' : null });
          return emit(event);
        }
        case 'text_delta':
        case 'reasoning_delta': {
          const b = blocks.get(event.index);
          if (b?.guard == null) return emit(event);
          const text = b.guard.push(event.text);
          if (b.guard.blocked !== null) {
            count(ctx, b.rules!, b.guard);
            return refuse(dlpRefusal(ctx, b.guard.blocked), emit);
          }
          if (text.length > 0) emit({ ...event, text });
          return;
        }
        case 'tool_args_delta': {
          const b = blocks.get(event.index);
          if (b === undefined || b.guard === null) return emit(event);
          if (b.args !== null) {
            b.args += event.delta;
            return;
          }
          const delta = b.guard.push(event.delta);
          if (delta.length > 0) emit({ ...event, delta });
          return;
        }
        case 'block_stop': {
          const b = blocks.get(event.index);
          if (b !== undefined && !close(event.index, b, emit)) return;
          return emit(event);
        }
        case 'error': {
          for (const [index, b] of [...blocks]) if (!close(index, b, emit)) return;
          return emit({ ...event, error: { ...event.error, message: message(event.error.message, ctx) } });
        }
        case 'message_stop':
        case 'finish': {
          // A stream that ends (or is cut) hands on what it held first.
          if (event.type !== 'finish') for (const [index, b] of [...blocks]) if (!close(index, b, emit)) return;
          return emit(event);
        }
        default:
          return emit(event);
      }
    };
    return handle;
  }

  function message(text: string, ctx: RequestContext): string {
    const g = new OutputGuard(acting(rules));
    const out = g.whole(text);
    count(ctx, rules, g);
    // Not the answer: an error stays an error, only its text is withheld.
    return g.blocked !== null ? `The upstream's error message was withheld: it contained data the policy does not let through (${g.blocked}).` : out;
  }

  return { scanning: rules.detectors.length > 0, response, stream, message };
}
