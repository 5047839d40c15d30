/**
 * Stage 7 for the kinds that do not generate: what the policy says about the content a token
 * count or an embedding sends upstream.
 *
 * - count_tokens sends a whole conversation: it takes the generation stage as is (tool allow
 *   lists, request filters, DLP, policy prompts), so what is counted is what would be sent.
 * - embed sends texts: DLP over each input, the Gemini title and the OpenAI `user`; tool lists,
 *   filters and prompts are about conversations and do not apply. Token-id inputs cannot be
 *   scanned: while DLP acts on this caller, they are refused rather than sent unread.
 */
import { GatewayError, type EmbedRequest, type Request as IRRequest, type TextPart, type WireFormat } from '@tollgate/codecs/base';
import type { Principal } from '@tollgate/policy';
import type { Registry } from '../registry/index.js';
import type { RequestContext } from './context.js';
import type { RequestFilter } from './filters.js';
import { policyStage, type ContentEngine, type DlpDeps } from './policy-stage.js';
import type { Policy } from '@tollgate/policy';

export interface KindPolicyInput {
  policy: Policy | null;
  registry: Registry;
  filters: readonly RequestFilter[];
  dlp: DlpDeps | null;
  content: ContentEngine | null;
  ctx: RequestContext;
  principal: Principal;
  model: string;
  format: WireFormat;
}

export type KindPolicyResult<T> = { ok: true; request: T } | { ok: false; error: GatewayError; reason: string };

export async function countPolicy(input: KindPolicyInput, ir: IRRequest): Promise<KindPolicyResult<IRRequest>> {
  const staged = await policyStage({ ...input, ir });
  // A count's answer is a number: there is no answer text to guard (an error's message still is: `errorDlp`).
  input.ctx.answerGuard = null;
  return staged.ok ? { ok: true, request: staged.ir } : staged;
}

export async function embedPolicy(input: KindPolicyInput, request: EmbedRequest): Promise<KindPolicyResult<EmbedRequest>> {
  const { policy, dlp, ctx } = input;
  if (policy === null || dlp === null) return { ok: true, request };
  const enforce = (policy.enforcement ?? 'enforce') !== 'shadow';
  // The texts as a conversation, so the engine sees them as it sees a generation's.
  const texts: Array<{ index: number; text: string }> = [];
  request.inputs.forEach((input, index) => {
    if (typeof input === 'string') texts.push({ index, text: input });
  });
  const system: TextPart[] = request.title === undefined ? [] : [{ type: 'text', text: request.title }];
  const ir: IRRequest = {
    system,
    messages: texts.map((t) => ({ role: 'user', content: [{ type: 'text', text: t.text }] })),
    tools: [],
    stream: false,
    ...(request.user === undefined ? {} : { user: request.user }),
  };
  const result = await dlp.run({ policy, principal: input.principal, ir, ctx });
  if (!result.ok) return result;
  // No answer text to guard, but an upstream error may quote the inputs.
  ctx.errorDlp = result.output;
  if (result.reencode && request.inputs.some((i) => typeof i !== 'string')) {
    const reason = 'dlp_unscannable:token_ids';
    if (enforce) {
      return {
        ok: false,
        error: new GatewayError('invalid_request', 'Token-id inputs cannot be checked by the data-protection policy that applies to you; send text.', {
          param: 'input',
        }),
        reason,
      };
    }
    ctx.wouldBlock.push(reason);
  }
  if (result.ir === ir) return { ok: true, request };
  const inputs = [...request.inputs];
  result.ir.messages.forEach((m, i) => {
    const part = m.content[0];
    if (part !== undefined && part.type === 'text') inputs[texts[i]!.index] = part.text;
  });
  const out: EmbedRequest = { ...request, inputs };
  const title = result.ir.system[0];
  if (request.title !== undefined && title !== undefined) out.title = title.text;
  if (result.ir.user !== undefined) out.user = result.ir.user;
  return { ok: true, request: out };
}
