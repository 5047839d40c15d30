/**
 * One question through the real SDK of each client format — openai (Chat Completions and
 * Responses), @anthropic-ai/sdk, @google/genai — streamed or whole, reduced to what a user
 * sees: the answer's text and tool calls, or the error the SDK threw (with its HTTP status).
 */
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import type { ClientFormat } from './echo-upstream.js';

export interface Clients {
  openai: OpenAI;
  anthropic: Anthropic;
  gemini: GoogleGenAI;
}

/**
 * SDK clients for a gateway: at `url` (a server: `tollgate serve`, an edge handler behind a
 * loopback server), and with `fetch` for the SDKs that take one (in-process `gateway.fetch`).
 * Gemini's SDK takes no fetch: it always goes to `url` (without `retryOptions` it does not retry).
 */
export function sdkClients(key: string, url: string, fetch?: typeof globalThis.fetch): Clients {
  return {
    openai: new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0, ...(fetch === undefined ? {} : { fetch }) }),
    anthropic: new Anthropic({ apiKey: key, baseURL: url, maxRetries: 0, ...(fetch === undefined ? {} : { fetch }) }),
    gemini: new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: url } }),
  };
}

export interface Question {
  model: string;
  text: string;
  stream: boolean;
  /** The client's own system prompt. */
  system?: string;
  /** Function tools the request declares (no parameters). */
  tools?: string[];
}

export interface Answer {
  text: string;
  /** Tool calls: name and arguments (JSON text). */
  toolCalls: Array<{ name: string; arguments: string }>;
}

export interface Failure {
  error: unknown;
  /** The HTTP status the SDK reports, when it has one (an in-stream error may have none). */
  status: number | undefined;
  /** Text the client had received before the stream failed. */
  partial: string;
}

const isFailure = (x: Answer | Failure): x is Failure => 'error' in x;
export { isFailure };

const schema = { type: 'object', properties: {} } as const;

/** Ask through the SDK of `format`; an error becomes a `Failure` (never thrown). */
export async function ask(clients: Clients, format: ClientFormat, q: Question): Promise<Answer | Failure> {
  let partial = '';
  const seen = (t: string | null | undefined) => {
    if (typeof t === 'string') partial += t;
  };
  try {
    switch (format) {
      case 'openai_chat': {
        const messages: OpenAI.ChatCompletionMessageParam[] = [
          ...(q.system === undefined ? [] : [{ role: 'system' as const, content: q.system }]),
          { role: 'user', content: q.text },
        ];
        const tools = q.tools?.map((name) => ({ type: 'function' as const, function: { name, parameters: schema } }));
        const params = { model: q.model, messages, ...(tools === undefined ? {} : { tools }) };
        if (!q.stream) {
          const r = await clients.openai.chat.completions.create(params);
          const m = r.choices[0]!.message;
          return {
            text: m.content ?? '',
            toolCalls: (m.tool_calls ?? []).map((c) =>
              c.type === 'function' ? { name: c.function.name, arguments: c.function.arguments } : { name: '', arguments: '' },
            ),
          };
        }
        const stream = await clients.openai.chat.completions.create({ ...params, stream: true });
        const calls = new Map<number, { name: string; arguments: string }>();
        for await (const chunk of stream) {
          const d = chunk.choices[0]?.delta;
          seen(d?.content);
          for (const c of d?.tool_calls ?? []) {
            const call = calls.get(c.index) ?? { name: '', arguments: '' };
            call.name += c.function?.name ?? '';
            call.arguments += c.function?.arguments ?? '';
            calls.set(c.index, call);
          }
        }
        return { text: partial, toolCalls: [...calls.values()] };
      }
      case 'openai_responses': {
        const tools = q.tools?.map((name) => ({ type: 'function' as const, name, parameters: schema, strict: false }));
        const params = {
          model: q.model,
          input: q.text,
          ...(q.system === undefined ? {} : { instructions: q.system }),
          ...(tools === undefined ? {} : { tools }),
        };
        const calls = (output: OpenAI.Responses.ResponseOutputItem[]) =>
          output.flatMap((o) => (o.type === 'function_call' ? [{ name: o.name, arguments: o.arguments }] : []));
        if (!q.stream) {
          const r = await clients.openai.responses.create(params);
          return { text: r.output_text, toolCalls: calls(r.output) };
        }
        const stream = await clients.openai.responses.create({ ...params, stream: true });
        let final: OpenAI.Responses.Response | undefined;
        for await (const e of stream) {
          if (e.type === 'response.output_text.delta') seen(e.delta);
          if (e.type === 'response.completed') final = e.response;
          if (e.type === 'error') throw Object.assign(new Error(e.message), { status: undefined });
          if (e.type === 'response.failed') throw Object.assign(new Error(e.response.error?.message ?? 'failed'), { status: undefined });
        }
        if (final === undefined) throw new Error('the stream ended without response.completed');
        return { text: partial, toolCalls: calls(final.output) };
      }
      case 'anthropic_messages': {
        const tools = q.tools?.map((name) => ({ name, input_schema: schema }));
        const params = {
          model: q.model,
          max_tokens: 200,
          messages: [{ role: 'user' as const, content: q.text }],
          ...(q.system === undefined ? {} : { system: q.system }),
          ...(tools === undefined ? {} : { tools }),
        };
        const toAnswer = (m: Anthropic.Message): Answer => ({
          text: m.content.map((c) => (c.type === 'text' ? c.text : '')).join(''),
          toolCalls: m.content.flatMap((c) => (c.type === 'tool_use' ? [{ name: c.name, arguments: JSON.stringify(c.input) }] : [])),
        });
        if (!q.stream) return toAnswer(await clients.anthropic.messages.create(params));
        const stream = clients.anthropic.messages.stream(params).on('text', (t) => seen(t));
        return toAnswer(await stream.finalMessage());
      }
      case 'gemini_generate_content': {
        const config = {
          ...(q.system === undefined ? {} : { systemInstruction: q.system }),
          ...(q.tools === undefined ? {} : { tools: [{ functionDeclarations: q.tools.map((name) => ({ name, parametersJsonSchema: schema })) }] }),
        };
        const params = { model: q.model, contents: q.text, config };
        if (!q.stream) {
          const r = await clients.gemini.models.generateContent(params);
          return { text: r.text ?? '', toolCalls: (r.functionCalls ?? []).map((c) => ({ name: c.name ?? '', arguments: JSON.stringify(c.args ?? {}) })) };
        }
        const stream = await clients.gemini.models.generateContentStream(params);
        const toolCalls: Answer['toolCalls'] = [];
        for await (const chunk of stream) {
          seen(chunk.text);
          for (const c of chunk.functionCalls ?? []) toolCalls.push({ name: c.name ?? '', arguments: JSON.stringify(c.args ?? {}) });
        }
        return { text: partial, toolCalls };
      }
    }
  } catch (error) {
    const status = error instanceof ApiError ? error.status : (error as { status?: number }).status;
    return { error, status: typeof status === 'number' ? status : undefined, partial };
  }
}
