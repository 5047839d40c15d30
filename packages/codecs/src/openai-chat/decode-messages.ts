/** `messages[]` of a Chat Completions request → IR system parts and messages. */
import type { AssistantContentPart, FilePart, ImagePart, TextPart, ToolResultPart, UserContentPart } from '../ir/content.js';
import type { Message } from '../ir/message.js';
import type { ConversionWarning } from '../ir/warning.js';
import { sourceFromUrl } from '../shared/data-uri.js';
import { invalid } from '../shared/fields.js';
import { asString, isObject, type JsonObject } from '../shared/guards.js';
import { argumentsText, audioMediaType, fileDataSource, pushToolResult } from '../shared/openai-content.js';
import { baseCallId, unfoldSignature } from '../shared/tool-call-id.js';
import { dropped, lossy } from '../shared/warnings.js';
import { decodeCacheControl } from './schemas.js';

interface State {
  warnings: ConversionWarning[];
  system: TextPart[];
  messages: Message[];
  seenConversation: boolean;
  /** Legacy `function_call`s have no id: one is made up and matched to the `function` result. */
  legacyCalls: Map<string, string>;
  legacyCount: number;
}

export function decodeMessages(raw: unknown[], warnings: ConversionWarning[]): { system: TextPart[]; messages: Message[] } {
  const state: State = { warnings, system: [], messages: [], seenConversation: false, legacyCalls: new Map(), legacyCount: 0 };
  raw.forEach((message, i) => decodeMessage(message, `messages[${i}]`, state));
  return { system: state.system, messages: state.messages };
}

function decodeMessage(message: unknown, path: string, state: State): void {
  if (!isObject(message)) invalid(`${path} must be an object.`, path);
  const role = message.role;
  switch (role) {
    case 'system':
    case 'developer': {
      if (state.seenConversation) {
        state.warnings.push(lossy(path, `A ${role} message after the conversation started was moved to the system prompt.`));
      }
      if (typeof message.name === 'string') state.warnings.push(dropped(`${path}.name`, 'the IR has no name for system messages'));
      state.system.push(...systemContent(message.content, `${path}.content`, state));
      return;
    }
    case 'user': {
      state.seenConversation = true;
      const content = userContent(message.content, `${path}.content`, state);
      const name = asString(message.name);
      state.messages.push(name === undefined ? { role: 'user', content } : { role: 'user', content, name });
      return;
    }
    case 'assistant': {
      state.seenConversation = true;
      const content = assistantContent(message, path, state);
      const name = asString(message.name);
      state.messages.push(name === undefined ? { role: 'assistant', content } : { role: 'assistant', content, name });
      return;
    }
    case 'tool': {
      state.seenConversation = true;
      const id = asString(message.tool_call_id);
      if (id === undefined) invalid(`${path}.tool_call_id must be a string.`, `${path}.tool_call_id`);
      pushToolResult(state.messages, { type: 'tool_result', toolCallId: baseCallId(id), content: toolContent(message.content, `${path}.content`, state) });
      return;
    }
    case 'function': {
      state.seenConversation = true;
      const name = asString(message.name);
      if (name === undefined) invalid(`${path}.name must be a string.`, `${path}.name`);
      const id = state.legacyCalls.get(name) ?? `call_${name}`;
      const content = toolContent(message.content, `${path}.content`, state);
      pushToolResult(state.messages, { type: 'tool_result', toolCallId: id, toolName: name, content });
      return;
    }
    default:
      invalid(`${path}.role must be one of system, developer, user, assistant, tool, function.`, `${path}.role`);
  }
}

function text(value: string, cache: unknown): TextPart {
  const part: TextPart = { type: 'text', text: value };
  const cacheControl = decodeCacheControl(cache);
  if (cacheControl !== undefined) part.cacheControl = cacheControl;
  return part;
}

function partsOf(content: unknown, path: string): unknown[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (Array.isArray(content)) return content;
  return invalid(`${path} must be a string or an array of content parts.`, path);
}

function systemContent(content: unknown, path: string, state: State): TextPart[] {
  const out: TextPart[] = [];
  partsOf(content, path).forEach((part, j) => {
    const decoded = contentPart(part, `${path}[${j}]`, state);
    if (decoded === undefined) return;
    if (decoded.type === 'text') out.push(decoded);
    else state.warnings.push(dropped(`${path}[${j}]`, 'system messages carry only text'));
  });
  return out;
}

function userContent(content: unknown, path: string, state: State): UserContentPart[] {
  const out: UserContentPart[] = [];
  partsOf(content, path).forEach((part, j) => {
    const decoded = contentPart(part, `${path}[${j}]`, state);
    if (decoded !== undefined) out.push(decoded);
  });
  return out;
}

function toolContent(content: unknown, path: string, state: State): ToolResultPart['content'] {
  if (content === null || content === undefined) return [];
  return userContent(content, path, state);
}

/** One user-side content part; unknown part types are dropped with a warning. */
function contentPart(part: unknown, path: string, state: State): UserContentPart | undefined {
  if (!isObject(part)) return invalid(`${path} must be an object.`, path);
  const cacheControl = decodeCacheControl(part.cache_control);
  switch (part.type) {
    case 'text': {
      const value = asString(part.text);
      if (value === undefined) invalid(`${path}.text must be a string.`, `${path}.text`);
      return text(value, part.cache_control);
    }
    case 'image_url': {
      const image = part.image_url;
      const url = typeof image === 'string' ? image : isObject(image) ? asString(image.url) : undefined;
      if (url === undefined) invalid(`${path}.image_url.url must be a string.`, `${path}.image_url.url`);
      const out: ImagePart = { type: 'image', source: sourceFromUrl(url) };
      const detail = isObject(image) ? asString(image.detail) : undefined;
      if (detail !== undefined) out.detail = detail;
      if (cacheControl !== undefined) out.cacheControl = cacheControl;
      return out;
    }
    case 'input_audio': {
      const audio = isObject(part.input_audio) ? part.input_audio : {};
      const data = asString(audio.data);
      const format = asString(audio.format);
      if (data === undefined || format === undefined) {
        invalid(`${path}.input_audio needs string data and format.`, `${path}.input_audio`);
      }
      const out: FilePart = { type: 'file', source: { kind: 'base64', mediaType: audioMediaType(format), data } };
      if (cacheControl !== undefined) out.cacheControl = cacheControl;
      return out;
    }
    case 'file':
      return filePart(isObject(part.file) ? part.file : {}, path, cacheControl);
    default:
      state.warnings.push(dropped(path, `content part type ${JSON.stringify(part.type)} has no IR equivalent`));
      return undefined;
  }
}

function filePart(file: JsonObject, path: string, cacheControl: FilePart['cacheControl']): FilePart {
  const filename = asString(file.filename);
  const data = asString(file.file_data);
  const fileId = asString(file.file_id);
  let out: FilePart;
  if (data !== undefined) {
    out = { type: 'file', source: fileDataSource(data, filename) };
  } else if (fileId !== undefined) {
    out = { type: 'file', source: { kind: 'file_id', fileId } };
  } else {
    return invalid(`${path}.file needs file_data or file_id.`, `${path}.file`);
  }
  if (filename !== undefined) out.filename = filename;
  if (cacheControl !== undefined) out.cacheControl = cacheControl;
  return out;
}

function assistantContent(message: JsonObject, path: string, state: State): AssistantContentPart[] {
  const out: AssistantContentPart[] = [];
  const reasoning = asString(message.reasoning_content) ?? asString(message.reasoning);
  if (reasoning !== undefined && reasoning !== '') out.push({ type: 'reasoning', text: reasoning });
  const content = message.content;
  if (typeof content === 'string') {
    if (content !== '') out.push({ type: 'text', text: content });
  } else if (Array.isArray(content)) {
    content.forEach((part, j) => {
      const partPath = `${path}.content[${j}]`;
      if (isObject(part) && part.type === 'refusal') {
        const refusal = asString(part.refusal);
        if (refusal !== undefined) out.push({ type: 'refusal', text: refusal });
        return;
      }
      const decoded = contentPart(part, partPath, state);
      if (decoded === undefined) return;
      if (decoded.type === 'text' || decoded.type === 'image') out.push(decoded);
      else state.warnings.push(dropped(partPath, 'assistant messages cannot carry files'));
    });
  } else if (content !== null && content !== undefined) {
    invalid(`${path}.content must be a string, an array of content parts, or null.`, `${path}.content`);
  }
  const refusal = asString(message.refusal);
  if (refusal !== undefined && refusal !== '') out.push({ type: 'refusal', text: refusal });
  if (message.tool_calls !== undefined && message.tool_calls !== null) {
    if (!Array.isArray(message.tool_calls)) invalid(`${path}.tool_calls must be an array.`, `${path}.tool_calls`);
    message.tool_calls.forEach((call, k) => {
      const callPath = `${path}.tool_calls[${k}]`;
      if (!isObject(call)) invalid(`${callPath} must be an object.`, callPath);
      if (call.type !== undefined && call.type !== 'function') {
        state.warnings.push(dropped(callPath, `tool call type ${JSON.stringify(call.type)} has no IR equivalent`));
        return;
      }
      const fn = isObject(call.function) ? call.function : undefined;
      const id = asString(call.id);
      const name = fn === undefined ? undefined : asString(fn.name);
      if (id === undefined || name === undefined) invalid(`${callPath} needs a string id and function.name.`, callPath);
      // An id the gateway gave out may carry a Gemini thought signature: it goes back on the call.
      const { id: callId, thoughtSignature } = unfoldSignature(id);
      const part: AssistantContentPart = { type: 'tool_call', id: callId, name, arguments: argumentsText(fn?.arguments) };
      if (thoughtSignature !== undefined) part.thoughtSignature = thoughtSignature;
      out.push(part);
    });
  }
  if (isObject(message.function_call)) {
    const name = asString(message.function_call.name);
    if (name === undefined) invalid(`${path}.function_call.name must be a string.`, `${path}.function_call.name`);
    const id = `call_${name}_${state.legacyCount++}`;
    state.legacyCalls.set(name, id);
    out.push({ type: 'tool_call', id, name, arguments: argumentsText(message.function_call.arguments) });
  }
  if (message.audio !== undefined && message.audio !== null) {
    state.warnings.push(dropped(`${path}.audio`, 'previous audio responses have no IR equivalent'));
  }
  return out;
}
