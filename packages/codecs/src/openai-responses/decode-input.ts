/** `input` of a Responses request (a string or items) → IR system parts and messages. */
import type { AssistantContentPart, FilePart, ImagePart, ReasoningPart, TextPart, UserContentPart } from '../ir/content.js';
import type { Message } from '../ir/message.js';
import type { ConversionWarning } from '../ir/warning.js';
import { sourceFromUrl } from '../shared/data-uri.js';
import { invalid } from '../shared/fields.js';
import { asString, isObject, type JsonObject } from '../shared/guards.js';
import { argumentsText, audioMediaType, fileDataSource, pushToolResult } from '../shared/openai-content.js';
import { baseCallId, unfoldSignature } from '../shared/tool-call-id.js';
import { dropped, lossy } from '../shared/warnings.js';
import { reasoningParts } from './decode-response.js';
import type { KeptItem } from './schemas.js';

interface State {
  warnings: ConversionWarning[];
  system: TextPart[];
  messages: Message[];
  /** Items with no IR form (item references, built-in tool calls), kept with their position. */
  kept: KeptItem[];
  seenConversation: boolean;
}

export interface DecodedInput {
  system: TextPart[];
  messages: Message[];
  kept: KeptItem[];
}

export function decodeInput(input: unknown, warnings: ConversionWarning[]): DecodedInput {
  const state: State = { warnings, system: [], messages: [], kept: [], seenConversation: false };
  if (input === undefined || input === null) return state;
  if (typeof input === 'string') {
    state.messages.push({ role: 'user', content: [{ type: 'text', text: input }] });
    return state;
  }
  if (!Array.isArray(input)) invalid('input must be a string or an array of input items.', 'input');
  input.forEach((item, i) => decodeItem(item, i, `input[${i}]`, state));
  return state;
}

function decodeItem(item: unknown, at: number, path: string, state: State): void {
  if (!isObject(item)) invalid(`${path} must be an object.`, path);
  const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
  switch (type) {
    case 'message':
      return decodeMessage(item, path, state);
    case 'function_call': {
      const id = asString(item.call_id);
      const name = asString(item.name);
      if (id === undefined || name === undefined) invalid(`${path} needs a string call_id and name.`, path);
      // A call id the gateway gave out may carry a Gemini thought signature: it goes back on the call.
      const unfolded = unfoldSignature(id);
      const part: AssistantContentPart = { type: 'tool_call', id: unfolded.id, name, arguments: argumentsText(item.arguments) };
      if (unfolded.thoughtSignature !== undefined) part.thoughtSignature = unfolded.thoughtSignature;
      const itemId = asString(item.id);
      if (itemId !== undefined) part.itemId = itemId;
      return pushAssistant(state, [part]);
    }
    case 'function_call_output': {
      const id = asString(item.call_id);
      if (id === undefined) invalid(`${path}.call_id must be a string.`, `${path}.call_id`);
      state.seenConversation = true;
      const content = item.output === undefined || item.output === null ? [] : userContent(item.output, `${path}.output`, state);
      return pushToolResult(state.messages, { type: 'tool_result', toolCallId: baseCallId(id), content });
    }
    case 'reasoning':
      return pushAssistant(state, reasoningInput(item, path, state));
    default:
      if (typeof type !== 'string') invalid(`${path}.type must be a string.`, `${path}.type`);
      // item_reference, web_search_call, computer_call_output, mcp_*, custom_tool_call, …
      state.kept.push({ at, item });
  }
}

function decodeMessage(item: JsonObject, path: string, state: State): void {
  const role = item.role;
  switch (role) {
    case 'system':
    case 'developer':
      if (state.seenConversation) {
        state.warnings.push(lossy(path, `A ${role} message after the conversation started was moved to the system prompt.`));
      }
      for (const [j, part] of userContent(item.content, `${path}.content`, state).entries()) {
        if (part.type === 'text') state.system.push(part);
        else state.warnings.push(dropped(`${path}.content[${j}]`, 'system messages carry only text'));
      }
      return;
    case 'user':
      state.seenConversation = true;
      state.messages.push({ role: 'user', content: userContent(item.content, `${path}.content`, state) });
      return;
    case 'assistant':
      return pushAssistant(state, assistantContent(item.content, `${path}.content`, state));
    default:
      invalid(`${path}.role must be one of user, assistant, system, developer.`, `${path}.role`);
  }
}

/** Assistant-side items (messages, function calls, reasoning) in a row form one IR message. */
function pushAssistant(state: State, parts: AssistantContentPart[]): void {
  state.seenConversation = true;
  const last = state.messages[state.messages.length - 1];
  if (last !== undefined && last.role === 'assistant') last.content.push(...parts);
  else state.messages.push({ role: 'assistant', content: parts });
}

function partsOf(content: unknown, path: string): unknown[] {
  if (typeof content === 'string') return [{ type: 'input_text', text: content }];
  if (Array.isArray(content)) return content;
  return invalid(`${path} must be a string or an array of content parts.`, path);
}

function userContent(content: unknown, path: string, state: State): UserContentPart[] {
  const out: UserContentPart[] = [];
  partsOf(content, path).forEach((part, j) => {
    const decoded = inputPart(part, `${path}[${j}]`, state);
    if (decoded !== undefined) out.push(decoded);
  });
  return out;
}

function inputPart(part: unknown, path: string, state: State): UserContentPart | undefined {
  if (!isObject(part)) return invalid(`${path} must be an object.`, path);
  switch (part.type) {
    case 'input_text':
    case 'output_text':
    case 'text': {
      const text = asString(part.text);
      if (text === undefined) invalid(`${path}.text must be a string.`, `${path}.text`);
      return { type: 'text', text };
    }
    case 'input_image': {
      const url = asString(part.image_url);
      const fileId = asString(part.file_id);
      let out: ImagePart;
      if (url !== undefined) out = { type: 'image', source: sourceFromUrl(url) };
      else if (fileId !== undefined) out = { type: 'image', source: { kind: 'file_id', fileId } };
      else return invalid(`${path} needs image_url or file_id.`, path);
      const detail = asString(part.detail);
      if (detail !== undefined) out.detail = detail;
      return out;
    }
    case 'input_file':
      return inputFile(part, path);
    case 'input_audio': {
      const audio = isObject(part.input_audio) ? part.input_audio : {};
      const data = asString(audio.data);
      const format = asString(audio.format);
      if (data === undefined || format === undefined) invalid(`${path}.input_audio needs string data and format.`, `${path}.input_audio`);
      return { type: 'file', source: { kind: 'base64', mediaType: audioMediaType(format), data } };
    }
    default:
      state.warnings.push(dropped(path, `content part type ${JSON.stringify(part.type)} has no IR equivalent`));
      return undefined;
  }
}

function inputFile(part: JsonObject, path: string): FilePart {
  const data = asString(part.file_data);
  const fileId = asString(part.file_id);
  const url = asString(part.file_url);
  const filename = asString(part.filename);
  let out: FilePart;
  if (data !== undefined) {
    out = { type: 'file', source: fileDataSource(data, filename) };
  } else if (fileId !== undefined) out = { type: 'file', source: { kind: 'file_id', fileId } };
  else if (url !== undefined) out = { type: 'file', source: { kind: 'url', url } };
  else return invalid(`${path} needs file_data, file_id or file_url.`, path);
  if (filename !== undefined) out.filename = filename;
  return out;
}

function assistantContent(content: unknown, path: string, state: State): AssistantContentPart[] {
  const out: AssistantContentPart[] = [];
  partsOf(content, path).forEach((part, j) => {
    const partPath = `${path}[${j}]`;
    if (isObject(part) && part.type === 'refusal') {
      const refusal = asString(part.refusal);
      if (refusal === undefined) invalid(`${partPath}.refusal must be a string.`, `${partPath}.refusal`);
      out.push({ type: 'refusal', text: refusal });
      return;
    }
    const decoded = inputPart(part, partPath, state);
    if (decoded === undefined) return;
    if (decoded.type === 'text' || decoded.type === 'image') out.push(decoded);
    else state.warnings.push(dropped(partPath, 'assistant messages cannot carry files'));
  });
  return out;
}

/** A reasoning item, its summary checked strictly (a client sent it) → IR reasoning parts. */
function reasoningInput(item: JsonObject, path: string, state: State): ReasoningPart[] {
  const texts: string[] = [];
  if (item.summary !== undefined && item.summary !== null) {
    if (!Array.isArray(item.summary)) invalid(`${path}.summary must be an array.`, `${path}.summary`);
    item.summary.forEach((part, j) => {
      const text = isObject(part) ? asString(part.text) : undefined;
      if (text === undefined) invalid(`${path}.summary[${j}].text must be a string.`, `${path}.summary[${j}]`);
      texts.push(text);
    });
  }
  if (Array.isArray(item.content) && item.content.length > 0) {
    state.warnings.push(dropped(`${path}.content`, 'raw reasoning text has no IR form beside the summary'));
  }
  return reasoningParts(item, texts);
}
