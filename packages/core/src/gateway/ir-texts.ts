/**
 * Every text a client sends, in the canonical request: system prompt, message text and
 * participant names, visible reasoning, tool-call arguments in history (the string values of
 * their JSON), tool results, file names, tool definitions (descriptions and the strings of
 * their schemas), the end-user id and metadata values, stop sequences, the response format's
 * description and schema, and the string values of fields kept for the same format (`vendor`:
 * Responses input items the IR does not model, say). Opaque values (signatures, encrypted
 * reasoning, base64 media, ids, media URLs) are not text. Together with the gateway never
 * relaying the client's own bytes while DLP is on (it sends the request re-encoded from
 * this IR), what leaves is what was scanned.
 */
import type { ContentPart, Request as IRRequest, ResponseFormat, TextPart, ToolDefinition } from '@tollgate/codecs/base';

/** Keys whose values are opaque tokens, never prose. */
export const OPAQUE_KEYS: ReadonlySet<string> = new Set([
  'id',
  'call_id',
  'encrypted_content',
  'signature',
  'thought_signature',
  'thoughtSignature',
  'data',
  'file_id',
  'file_data',
  'image_url',
  'type',
  'role',
  'status',
  'model',
]);

/** No key is opaque in the client's own JSON (tool arguments, schemas, metadata). */
const NONE: ReadonlySet<string> = new Set();

/** Every string value of a JSON value (keys are not rewritten), skipping the values of `opaque` keys. */
export function mapJson(value: unknown, fn: (text: string) => string, opaque: ReadonlySet<string> = NONE): unknown {
  if (typeof value === 'string') return fn(value);
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const r = mapJson(v, fn, opaque);
      if (r !== v) changed = true;
      return r;
    });
    return changed ? out : value;
  }
  if (typeof value === 'object' && value !== null) {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const r = opaque.has(k) ? v : mapJson(v, fn, opaque);
      if (r !== v) changed = true;
      out[k] = r;
    }
    return changed ? out : value;
  }
  return value;
}

/**
 * Tool-call arguments are JSON text: the texts are its string values, so a rewrite keeps it
 * valid JSON (a value holding escapes, `\n` in a key block, is rewritten decoded). Arguments
 * that are not JSON are one text.
 */
function mapArguments(args: string, fn: (text: string) => string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return fn(args);
  }
  const out = mapJson(parsed, fn);
  return out === parsed ? args : JSON.stringify(out);
}

function mapTool(tool: ToolDefinition, fn: (text: string) => string): ToolDefinition {
  const description = tool.description === undefined ? undefined : fn(tool.description);
  const parameters = mapJson(tool.parameters, fn) as Record<string, unknown>;
  if (description === tool.description && parameters === tool.parameters) return tool;
  const out: ToolDefinition = { ...tool, parameters };
  if (description !== undefined) out.description = description;
  return out;
}

function mapResponseFormat(format: ResponseFormat, fn: (text: string) => string): ResponseFormat {
  if (format.type !== 'json_schema') return format;
  const description = format.description === undefined ? undefined : fn(format.description);
  const schema = mapJson(format.schema, fn) as Record<string, unknown>;
  if (description === format.description && schema === format.schema) return format;
  const out: ResponseFormat = { ...format, schema };
  if (description !== undefined) out.description = description;
  return out;
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
      const args = mapArguments(part.arguments, fn);
      return args === part.arguments ? part : { ...part, arguments: args };
    }
    case 'file': {
      if (part.filename === undefined) return part;
      const filename = fn(part.filename);
      return filename === part.filename ? part : { ...part, filename };
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
    const r = mapPart<TextPart>(p, fn);
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
    const name = m.role !== 'tool' && m.name !== undefined ? fn(m.name) : undefined;
    if (!mc && (m.role === 'tool' || name === m.name)) return m;
    changed = true;
    const out = { ...m, content } as typeof m;
    if (name !== undefined && out.role !== 'tool') out.name = name;
    return out;
  });
  const tools = ir.tools.map((t) => {
    const r = mapTool(t, fn);
    if (r !== t) changed = true;
    return r;
  });
  const user = ir.user === undefined ? undefined : fn(ir.user);
  if (user !== ir.user) changed = true;
  let metadata = ir.metadata;
  if (metadata !== undefined) {
    const next = mapJson(metadata, fn) as Record<string, string>;
    if (next !== metadata) {
      metadata = next;
      changed = true;
    }
  }
  let stopSequences = ir.stopSequences;
  if (stopSequences !== undefined) {
    const next = mapJson(stopSequences, fn) as string[];
    if (next !== stopSequences) {
      stopSequences = next;
      changed = true;
    }
  }
  const responseFormat = ir.responseFormat === undefined ? undefined : mapResponseFormat(ir.responseFormat, fn);
  if (responseFormat !== ir.responseFormat) changed = true;
  let vendor = ir.vendor;
  if (vendor !== undefined) {
    const fields = mapJson(vendor.fields, fn, OPAQUE_KEYS) as Record<string, unknown>;
    if (fields !== vendor.fields) {
      vendor = { ...vendor, fields };
      changed = true;
    }
  }
  if (!changed) return ir;
  const out: IRRequest = { ...ir, system, messages, tools };
  if (user !== undefined) out.user = user;
  if (metadata !== undefined) out.metadata = metadata;
  if (stopSequences !== undefined) out.stopSequences = stopSequences;
  if (responseFormat !== undefined) out.responseFormat = responseFormat;
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
