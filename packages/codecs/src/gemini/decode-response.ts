/** Gemini `GenerateContentResponse` → canonical response. */
import type { DecodedResponse } from '../codec.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { AssistantContentPart } from '../ir/content.js';
import type { FinishReason } from '../ir/finish-reason.js';
import type { Response } from '../ir/response.js';
import type { ConversionWarning } from '../ir/warning.js';
import { asArray, asString, isObject, type JsonObject } from '../shared/guards.js';
import { lossy } from '../shared/warnings.js';
import { decodeModelPart, newCallIds } from './decode-parts.js';
import { decodeErrorObject } from './errors.js';
import { decodeFinishReason } from './finish-reason.js';
import { FORMAT, type DecodeContext } from './schemas.js';
import { decodeUsage, USAGE_KEYS } from './usage.js';

const RESPONSE_KEYS = new Set(['candidates', 'usageMetadata', 'modelVersion', 'responseId']);
const CANDIDATE_KEYS = new Set(['content', 'finishReason']);

/** The refusal shown for a blocked prompt: Gemini's own message, or one naming the block reason. */
export function blockedText(feedback: JsonObject): string {
  const message = asString(feedback['blockReasonMessage']);
  return message !== undefined && message.length > 0 ? message : `The prompt was blocked (${asString(feedback['blockReason']) ?? 'unknown reason'}).`;
}

/** `promptFeedback` of a response that blocked the prompt, if it did. */
export function blockedPrompt(body: JsonObject): JsonObject | undefined {
  const feedback = body['promptFeedback'];
  return isObject(feedback) && typeof feedback['blockReason'] === 'string' ? feedback : undefined;
}

export function decodeResponse(body: unknown): DecodedResponse {
  if (Array.isArray(body) && body.length === 1) body = body[0];
  if (!isObject(body)) throw new GatewayError('upstream_error', 'The upstream returned a response body that is not a JSON object.', { status: 502 });
  if (isObject(body['error'])) {
    const info = decodeErrorObject(body['error']);
    throw new GatewayError(info.code, info.message, { status: info.status });
  }
  const warnings: ConversionWarning[] = [];
  const ctx: DecodeContext = { strict: false, warnings };
  const candidates = asArray(body['candidates']) ?? [];
  if (candidates.length > 1) warnings.push(lossy('candidates', `Only the first of ${candidates.length} candidates was kept.`));
  const candidate = isObject(candidates[0]) ? candidates[0] : undefined;
  const id = asString(body['responseId']) ?? '';
  const ids = newCallIds(id.length > 0 ? id : undefined);

  const content: AssistantContentPart[] = [];
  const parts = candidate !== undefined && isObject(candidate['content']) ? (asArray(candidate['content']['parts']) ?? []) : [];
  parts.forEach((part, i) => content.push(...decodeModelPart(part, `candidates[0].content.parts[${i}]`, ctx, ids)));

  let finishReason: FinishReason;
  const blocked = blockedPrompt(body);
  if (candidate === undefined && blocked !== undefined) {
    // Other formats have no "prompt blocked" answer: they show a refusal.
    content.push({ type: 'refusal', text: blockedText(blocked) });
    finishReason = { unified: 'content_filter', raw: asString(blocked['blockReason']) ?? null };
  } else {
    finishReason = decodeFinishReason(
      candidate === undefined ? undefined : asString(candidate['finishReason']),
      content.some((p) => p.type === 'tool_call'),
    );
  }

  const response: Response = {
    id,
    model: asString(body['modelVersion']) ?? '',
    content,
    finishReason,
    usage: decodeUsage(body['usageMetadata']),
  };
  const createTime = asString(body['createTime']);
  const created = createTime === undefined ? NaN : Date.parse(createTime);
  if (!Number.isNaN(created)) response.created = Math.floor(created / 1000);

  // Fields with no IR home (promptFeedback, safetyRatings, finishMessage, token details, …) survive a same-format round trip.
  const fields: JsonObject = {};
  for (const key of Object.keys(body)) if (!RESPONSE_KEYS.has(key)) fields[key] = body[key];
  if (candidate !== undefined) {
    const extra: JsonObject = {};
    for (const key of Object.keys(candidate)) if (!CANDIDATE_KEYS.has(key)) extra[key] = candidate[key];
    if (Object.keys(extra).length > 0) fields['candidates'] = [extra];
  }
  const usage = body['usageMetadata'];
  if (isObject(usage)) {
    const extra: JsonObject = {};
    for (const key of Object.keys(usage)) if (!USAGE_KEYS.has(key)) extra[key] = usage[key];
    if (Object.keys(extra).length > 0) fields['usageMetadata'] = extra;
  }
  if (Object.keys(fields).length > 0) response.vendor = { format: FORMAT, fields };
  return { response, warnings };
}

/**
 * The function calls of every candidate (`Codec.answerToolCalls`), by name; one without a name
 * is null.
 */
export function answerToolCalls(body: unknown): Array<string | null> {
  if (Array.isArray(body) && body.length === 1) body = body[0];
  if (!isObject(body)) return [];
  const out: Array<string | null> = [];
  for (const candidate of asArray(body['candidates']) ?? []) {
    const parts = isObject(candidate) && isObject(candidate['content']) ? (asArray(candidate['content']['parts']) ?? []) : [];
    for (const part of parts) {
      if (!isObject(part)) continue;
      const call = part['functionCall'] ?? part['function_call'];
      if (call === undefined || call === null) continue;
      const name = isObject(call) ? asString(call['name']) : undefined;
      out.push(name === undefined || name === '' ? null : name);
    }
  }
  return out;
}
