/**
 * DLP on the answer (stage 10), driven by what request-side DLP decided (`OutputRules`):
 * surrogates are restored and, with `dlp.scan_responses`, the answer's text, tool-call
 * arguments and the fields it carries beside its content are scanned. Whole answers are
 * guarded at once; streams event by event, holding back only the DLP window of each text
 * block — and, when the answer is scanned, a tool call's own arguments until the call ends.
 * Part of the DLP engine, so a gateway without it bundles none of this.
 */
import { GatewayError, type Response as IRResponse, type StreamEvent, type AssistantContentPart } from '@tollgate/codecs/base';
import { OutputGuard, type OutputRules } from '@tollgate/policy/detectors';
import type { AnswerDlp } from '../gateway/answer-guard.js';
import type { RequestContext } from '../gateway/context.js';
import { OPAQUE_KEYS, mapJson } from '../gateway/ir-texts.js';

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
 * The answer side of DLP for one request. `enforced` false (shadow mode): the answer is
 * scanned and counted, never changed or withheld.
 */
export function answerDlp(rules: OutputRules, enforced: boolean): AnswerDlp {
  /** What the output guard runs with: in shadow mode every action is `log` (found and counted only). */
  const acting = (r: OutputRules): OutputRules => (enforced ? r : { ...r, action: () => 'log' });

  function response(answer: IRResponse, ctx: RequestContext): { response: IRResponse } | { error: GatewayError } {
    let changed = false;
    const content: AssistantContentPart[] = [];
    for (const p of answer.content) {
      let next: AssistantContentPart = p;
      if (p.type === 'text' || p.type === 'refusal' || p.type === 'reasoning') {
        // Reasoning is restored, never scanned: it is signed as the model wrote it.
        const r = p.type === 'reasoning' ? { ...noRestore, restore: rules.restore } : rules;
        const g = new OutputGuard(acting(r));
        const text = g.whole(p.text);
        count(ctx, r, g);
        if (g.blocked !== null) return { error: dlpRefusal(ctx, g.blocked) };
        if (text !== p.text) next = { ...p, text };
      } else if (p.type === 'tool_call') {
        const g = new OutputGuard(acting(rules), true);
        const args = g.whole(p.arguments);
        count(ctx, rules, g);
        if (g.blocked !== null) return { error: dlpRefusal(ctx, g.blocked) };
        if (args !== p.arguments) next = { ...p, arguments: args };
      }
      if (next !== p) changed = true;
      content.push(next);
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
        OPAQUE_KEYS,
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
    return (event, emit) => {
      if (stopped) return;
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
