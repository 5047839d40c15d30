/**
 * Every text a client sends, in the canonical request: system prompt, message text, visible
 * reasoning, tool-call arguments in history, tool results, and the string values of fields
 * kept for the same format (`vendor`: Responses input items the IR does not model, say).
 * Opaque values (signatures, encrypted reasoning, base64 media, ids) are not text.
 */
import type { ContentPart, Request as IRRequest, TextPart } from '@tollgate/codecs/base';

/** Keys whose values are opaque tokens, never prose. */
const OPAQUE_KEYS = new Set(['id', 'call_id', 'encrypted_content', 'signature', 'thought_signature', 'thoughtSignature', 'data', 'file_id', 'file_data', 'image_url', 'type', 'role', 'status', 'model']);

function mapJson(value: unknown, fn: (text: string) => string): unknown {
  if (typeof value === 'string') return fn(value);
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const r = mapJson(v, fn);
      if (r !== v) changed = true;
      return r;
    });
    return changed ? out : value;
  }
  if (typeof value === 'object' && value !== null) {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const r = OPAQUE_KEYS.has(k) ? v : mapJson(v, fn);
      if (r !== v) changed = true;
      out[k] = r;
    }
    return changed ? out : value;
  }
  return value;
}

function mapPart<P extends ContentPart>(part: P, fn: (text: string) => string): P {
  switch (part.type) {
    case 'text':
    case 'reasoning':
    case 'refusal': {
      const text = fn(part.text);
      return text === part.text ? part : { ...part, text };
    }
    case 'tool_call': {
      const args = fn(part.arguments);
      return args === part.arguments ? part : { ...part, arguments: args };
    }
    case 'tool_result': {
      let changed = false;
      const content = part.content.map((c) => {
        const r = mapPart(c, fn);
        if (r !== c) changed = true;
        return r;
      });
      return changed ? { ...part, content } : part;
    }
    default:
      return part;
  }
}

/**
 * Call `fn` on every text of the request, in a fixed order, and return the request with each
 * text replaced by what `fn` returned (the same object when nothing changed).
 */
export function mapRequestTexts(ir: IRRequest, fn: (text: string) => string): IRRequest {
  let changed = false;
  const system = ir.system.map((p) => {
    const r = mapPart(p, fn) as TextPart;
    if (r !== p) changed = true;
    return r;
  });
  const messages = ir.messages.map((m) => {
    let mc = false;
    const content = (m.content as ContentPart[]).map((p) => {
      const r = mapPart(p, fn);
      if (r !== p) mc = true;
      return r;
    });
    if (!mc) return m;
    changed = true;
    return { ...m, content } as typeof m;
  });
  let vendor = ir.vendor;
  if (vendor !== undefined) {
    const fields = mapJson(vendor.fields, fn) as Record<string, unknown>;
    if (fields !== vendor.fields) {
      vendor = { ...vendor, fields };
      changed = true;
    }
  }
  if (!changed) return ir;
  const out: IRRequest = { ...ir, system, messages };
  if (vendor !== undefined) out.vendor = vendor;
  return out;
}

/** Each text of the request, in the order `mapRequestTexts` visits them. */
export function requestTexts(ir: IRRequest): string[] {
  const out: string[] = [];
  mapRequestTexts(ir, (t) => {
    out.push(t);
    return t;
  });
  return out;
}
