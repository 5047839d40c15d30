/** The canonical response → a Chat Completions response body for the client. */
import type { EncodedResponse, EncodeResponseOptions } from '../codec.js';
import type { Response } from '../ir/response.js';
import type { ConversionWarning } from '../ir/warning.js';
import type { JsonObject } from '../shared/guards.js';
import { foldSignature } from '../shared/tool-call-id.js';
import { dropped, signatureDropped } from '../shared/warnings.js';
import { encodeFinishReason } from './finish-reason.js';
import { chatCompletionId, FORMAT, type WireToolCall } from './schemas.js';
import { encodeUsage } from './usage.js';

export function encodeResponse(response: Response, options: EncodeResponseOptions = {}): EncodedResponse {
  const warnings: ConversionWarning[] = [];
  const texts: string[] = [];
  const refusals: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: WireToolCall[] = [];
  response.content.forEach((part, i) => {
    const path = `content[${i}]`;
    switch (part.type) {
      case 'text':
        texts.push(part.text);
        break;
      case 'refusal':
        refusals.push(part.text);
        break;
      case 'reasoning':
        // The visible thinking is shown; its opaque proof has no place in Chat Completions.
        if (part.text !== '') reasoning.push(part.text);
        if (part.signature !== undefined || part.redactedData !== undefined || part.encryptedContent !== undefined) {
          warnings.push(signatureDropped(path, part.issuer ?? 'another vendor', FORMAT));
        }
        break;
      case 'tool_call':
        // A Gemini thought signature rides in the id the client echoes back (restored on the next request).
        toolCalls.push({ id: foldSignature(part.id, part.thoughtSignature), type: 'function', function: { name: part.name, arguments: part.arguments } });
        break;
      case 'image':
        warnings.push(dropped(path, 'OpenAI Chat responses carry no images'));
        break;
    }
  });

  const message: JsonObject = {
    role: 'assistant',
    content: texts.length === 0 ? null : texts.join(''),
    refusal: refusals.length === 0 ? null : refusals.join(''),
  };
  if (reasoning.length > 0) message.reasoning_content = reasoning.join('\n\n');
  if (toolCalls.length > 0) message.tool_calls = toolCalls;

  const vendor = response.vendor?.format === FORMAT ? response.vendor.fields : {};
  if (Array.isArray(vendor.annotations)) message.annotations = vendor.annotations;

  const body: JsonObject = {
    id: chatCompletionId(response.id),
    object: 'chat.completion',
    created: response.created ?? 0,
    model: options.model ?? response.model,
    choices: [{ index: 0, message, logprobs: vendor.logprobs ?? null, finish_reason: encodeFinishReason(response.finishReason) }],
  };
  if (response.usage !== null) body.usage = encodeUsage(response.usage);
  if (vendor.service_tier !== undefined) body.service_tier = vendor.service_tier;
  body.system_fingerprint = vendor.system_fingerprint ?? null;
  if (response.vendor !== undefined && response.vendor.format !== FORMAT) {
    for (const key of Object.keys(response.vendor.fields)) {
      warnings.push(dropped(key, `it is a ${response.vendor.format} field with no OpenAI Chat equivalent`));
    }
  }
  return { body, warnings };
}
