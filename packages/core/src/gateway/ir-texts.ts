/**
 * Every text a client sends, in the canonical request: system prompt, message text and
 * participant names, visible reasoning, tool-call arguments in history, tool results, file
 * names, tool definitions (names, descriptions and their schemas), the end-user id and metadata,
 * stop sequences, the response format's name, description and schema, and the string values of
 * fields kept for the same format (`vendor`: Responses input items the IR does not model, say).
 * Opaque values (signatures, encrypted reasoning, base64 media, ids, media URLs) are not text.
 * Together with the gateway never relaying the client's own bytes while DLP is on (it sends the
 * request re-encoded from this IR), what leaves is what was scanned.
 *
 * Some texts cannot be rewritten without breaking the request: a tool's name (calls and
 * choices refer to it), a JSON key (a schema's `properties`, `required`, the caller's own
 * argument names) and a JSON number (`{"card": 4111111111111111}`, a schema's `enum` or
 * `default`). They are visited with the place they are in (`field`); what the visitor returns
 * for them is ignored, so DLP refuses a request that would need them rewritten.
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

/**
 * Visits one text and returns what it becomes. `field`, when given, names a place the text
 * cannot be rewritten in (a tool name, a JSON key or number): what is returned is ignored.
 */
export type TextVisitor = (text: string, field?: string) => string;

/**
 * Which values of a JSON value are opaque, never text: a set of keys, or a test of a key and
 * its value (the answer side skips a key's value only when it looks opaque).
 */
export interface Opaque {
  has(key: string, value: unknown): boolean;
}

/** No key is opaque in the client's own JSON (tool arguments, schemas, metadata). */
const NONE: Opaque = new Set<string>();

/** The keys and numbers met walking a JSON value: texts that cannot be rewritten. */
interface Fixed {
  keys: string[];
  numbers: string[];
}

function walk(value: unknown, fn: TextVisitor, opaque: Opaque, fixed: Fixed | null): unknown {
  if (typeof value === 'string') return fn(value);
  if (typeof value === 'number') {
    fixed?.numbers.push(String(value));
    return value;
  }
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const r = walk(v, fn, opaque, fixed);
      if (r !== v) changed = true;
      return r;
    });
    return changed ? out : value;
  }
  if (typeof value === 'object' && value !== null) {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      fixed?.keys.push(k);
      const r = opaque.has(k, v) ? v : walk(v, fn, opaque, fixed);
      if (r !== v) changed = true;
      out[k] = r;
    }
    return changed ? out : value;
  }
  return value;
}

/**
 * Texts that cannot be rewritten, one visit for all of a kind (each visit costs every detector's
 * fixed cost): one a line, since no detector reads a value across a line break.
 */
function visitFixed(fn: TextVisitor, texts: readonly string[], field: string): void {
  if (texts.length > 0) fn(texts.join('\n'), field);
}

/**
 * Every string value of a JSON value, skipping the values of `opaque` keys. With `field`, its
 * keys and its numbers are visited too, after them, as texts that cannot be rewritten.
 */
export function mapJson(value: unknown, fn: TextVisitor, opaque: Opaque = NONE, field?: string): unknown {
  if (field === undefined) return walk(value, fn, opaque, null);
  const fixed: Fixed = { keys: [], numbers: [] };
  const out = walk(value, fn, opaque, fixed);
  visitFixed(fn, fixed.keys, `${field} (a key)`);
  visitFixed(fn, fixed.numbers, `${field} (a number)`);
  return out;
}

/** A JSON string literal, escapes and all (linear: its alternatives cannot both match), and the colon that makes it a key. */
const LITERAL = /"(?:[^"\\]|\\.)*"(\s*:)?/g;
const DIGIT = /[0-9]/;

/**
 * Tool-call arguments are JSON text, read in place: its string values are texts that are
 * rewritten (decoded, so a value holding escapes, `\n` in a key block, is rewritten whole and
 * the JSON stays valid; the rest of the text is kept as the client wrote it); its keys are
 * texts that cannot be; and so is the raw text with every string emptied — numbers as the
 * client wrote them, every digit, `{"card":4111111111111111}`. Arguments that are not JSON are
 * one text.
 */
function mapArguments(args: string, fn: TextVisitor, field: string): string {
  try {
    JSON.parse(args);
  } catch {
    return fn(args);
  }
  let changed = false;
  const keys: string[] = [];
  let rest = '';
  let at = 0;
  const out = args.replace(LITERAL, (match: string, colon: string | undefined, offset: number) => {
    rest += `${args.slice(at, offset)}""${colon ?? ''}`;
    at = offset + match.length;
    const literal = colon === undefined ? match : match.slice(0, match.length - colon.length);
    const text = literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
    if (colon !== undefined) {
      keys.push(text);
      return match;
    }
    const r = fn(text);
    if (r === text) return match;
    changed = true;
    return JSON.stringify(r);
  });
  rest += args.slice(at);
  visitFixed(fn, keys, `${field} (a key)`);
  // Outside its strings JSON has only numbers, `true`, `false`, `null` and punctuation: with no
  // digit there, there is nothing to find.
  if (DIGIT.test(rest)) fn(rest, `${field} (outside its strings)`);
  return changed ? out : args;
}

function mapTool(tool: ToolDefinition, fn: TextVisitor, field: string): ToolDefinition {
  const description = tool.description === undefined ? undefined : fn(tool.description);
  const parameters = mapJson(tool.parameters, fn, NONE, `${field}.parameters`) as Record<string, unknown>;
  if (description === tool.description && parameters === tool.parameters) return tool;
  const out: ToolDefinition = { ...tool, parameters };
  if (description !== undefined) out.description = description;
  return out;
}

function mapResponseFormat(format: ResponseFormat, fn: TextVisitor): ResponseFormat {
  if (format.type !== 'json_schema') return format;
  if (format.name !== undefined) fn(format.name, 'response_format.name');
  const description = format.description === undefined ? undefined : fn(format.description);
  const schema = mapJson(format.schema, fn, NONE, 'response_format.schema') as Record<string, unknown>;
  if (description === format.description && schema === format.schema) return format;
  const out: ResponseFormat = { ...format, schema };
  if (description !== undefined) out.description = description;
  return out;
}

function mapPart<P extends ContentPart>(part: P, fn: TextVisitor, field: string): P {
  switch (part.type) {
    case 'text':
    case 'reasoning':
    case 'refusal': {
      const text = fn(part.text);
      return text === part.text ? part : { ...part, text };
    }
    case 'tool_call': {
      fn(part.name, `${field}.name`);
      const args = mapArguments(part.arguments, fn, `${field}.arguments`);
      return args === part.arguments ? part : { ...part, arguments: args };
    }
    case 'file': {
      if (part.filename === undefined) return part;
      const filename = fn(part.filename);
      return filename === part.filename ? part : { ...part, filename };
    }
    case 'tool_result': {
      if (part.toolName !== undefined) fn(part.toolName, `${field}.name`);
      let changed = false;
      const content = part.content.map((c, i) => {
        const r = mapPart(c, fn, `${field}.content[${i}]`);
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
export function mapRequestTexts(ir: IRRequest, fn: TextVisitor): IRRequest {
  let changed = false;
  const system = ir.system.map((p, i) => {
    const r = mapPart<TextPart>(p, fn, `system[${i}]`);
    if (r !== p) changed = true;
    return r;
  });
  const messages = ir.messages.map((m, i) => {
    let mc = false;
    const content = (m.content as ContentPart[]).map((p, j) => {
      const r = mapPart(p, fn, `messages[${i}].content[${j}]`);
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
  visitFixed(
    fn,
    ir.tools.map((t) => t.name),
    'tools[].name',
  );
  const tools = ir.tools.map((t, i) => {
    const r = mapTool(t, fn, `tools[${i}]`);
    if (r !== t) changed = true;
    return r;
  });
  if (ir.toolChoice?.type === 'tool') fn(ir.toolChoice.name, 'tool_choice.name');
  const user = ir.user === undefined ? undefined : fn(ir.user);
  if (user !== ir.user) changed = true;
  let metadata = ir.metadata;
  if (metadata !== undefined) {
    const next = mapJson(metadata, fn, NONE, 'metadata') as Record<string, string>;
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

/** A text of the request; `field` names the place when it cannot be rewritten. */
export interface RequestText {
  text: string;
  field: string | undefined;
}

/** Each text of the request, in the order `mapRequestTexts` visits them. */
export function requestTexts(ir: IRRequest): RequestText[] {
  const out: RequestText[] = [];
  mapRequestTexts(ir, (text, field) => {
    out.push({ text, field });
    return text;
  });
  return out;
}
