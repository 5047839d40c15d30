/**
 * `npm start`'s quickstart as a real process: PORT=0, read the printed URL and demo key, call
 * it with the OpenAI, Anthropic and Gemini SDKs (each reaching a model of another vendor
 * too), see one usage JSON line per call on stdout, stop it with SIGINT.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, spawnTs, type Spawned } from './cli-support.js';

let p: Spawned;
let url: string;
let key: string;

beforeAll(async () => {
  p = spawnTs(['examples/quickstart/main.ts'], { env: { PORT: '0' } });
  [, url = ''] = await p.waitFor('stderr', /URL: +(http:\/\/127\.0\.0\.1:\d+)/);
  [, key = ''] = await p.waitFor('stderr', /demo key: +(tg_[A-Za-z0-9_-]{32,})/);
});

afterAll(() => {
  p?.kill('SIGKILL');
});

describe('the quickstart (npm start)', () => {
  it('prints its URL, a fresh tg_ demo key and a one-line curl', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url.endsWith(':8787') || url.endsWith(':0')).toBe(false);
    const [curl] = await p.waitFor('stderr', /curl [^\n]+/);
    expect(curl).toContain(`${url}/v1/chat/completions`);
    expect(curl).toContain(`Bearer ${key}`);
  });

  it('answers the OpenAI SDK, streamed and not, for its own and another vendor’s model', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 });
    const stream = client.chat.completions.stream({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello, tollgate!' }] });
    let deltas = 0;
    stream.on('content', () => void deltas++);
    const final = await stream.finalChatCompletion();
    expect(deltas).toBeGreaterThan(5);
    expect(final.choices[0]!.message.content).toMatch(/Hello from the tollgate quickstart!.*mock OpenAI API.*Hello, tollgate!/);

    const translated = await client.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] });
    expect(translated.choices[0]!.message.content).toMatch(/mock Anthropic API/);
    expect(translated.usage!.completion_tokens).toBeGreaterThan(0);

    const responses = await client.responses.create({ model: 'gpt-4o-mini', input: 'Hi from Responses' });
    expect(responses.output_text).toMatch(/mock OpenAI API.*Hi from Responses/);
  });

  it('answers the Anthropic SDK, streamed', async () => {
    const client = new Anthropic({ apiKey: key, baseURL: url, maxRetries: 0 });
    const message = await client.messages
      .stream({ model: 'claude-sonnet', max_tokens: 256, messages: [{ role: 'user', content: 'Hello from Anthropic' }] })
      .finalMessage();
    expect(message.content[0]).toMatchObject({ type: 'text' });
    expect((message.content[0] as { text: string }).text).toMatch(/mock Anthropic API.*Hello from Anthropic/);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    expect(message.stop_reason).toBe('end_turn');
  });

  it('answers the Gemini SDK, streamed', async () => {
    const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: url } });
    let text = '';
    for await (const chunk of await ai.models.generateContentStream({ model: 'gemini-flash', contents: 'Hello from Gemini' })) text += chunk.text ?? '';
    expect(text).toMatch(/mock Gemini API.*Hello from Gemini/);
  });

  it('calls a tool and answers with its result, for an OpenAI and an Anthropic client, translated or not', async () => {
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'get_weather',
          description: 'The weather in a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ];
    const openai = new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 });
    const question = { role: 'user' as const, content: 'Weather in Paris?' };
    const first = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [question], tools });
    const call = first.choices[0]!.message.tool_calls?.[0];
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
    expect(JSON.parse((call as { function: { arguments: string } }).function.arguments)).toEqual({ city: 'Weather in Paris?' });
    const second = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      tools,
      messages: [question, first.choices[0]!.message, { role: 'tool', tool_call_id: call!.id, content: '18 °C and sunny' }],
    });
    expect(second.choices[0]!.message.content).toMatch(/The tool get_weather answered: “18 °C and sunny”/);

    // An OpenAI client streaming from a Claude deployment: the tool call is translated chunk by chunk.
    const streamed = await openai.chat.completions.stream({ model: 'claude-sonnet', messages: [question], tools }).finalChatCompletion();
    expect(streamed.choices[0]!.finish_reason).toBe('tool_calls');
    expect(streamed.choices[0]!.message.tool_calls?.[0]).toMatchObject({ function: { name: 'get_weather', arguments: '{"city":"Weather in Paris?"}' } });

    const anthropic = new Anthropic({ apiKey: key, baseURL: url, maxRetries: 0 });
    const message = await anthropic.messages
      .stream({
        model: 'claude-sonnet',
        max_tokens: 256,
        messages: [question],
        tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
      })
      .finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content[0]).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'Weather in Paris?' } });

    const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const response = await openai.responses.create({
      model: 'gpt-4o-mini',
      input: 'Weather in Paris?',
      tools: [{ type: 'function', name: 'get_weather', parameters, strict: false }],
    });
    expect(response.output[0]).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: '{"city":"Weather in Paris?"}' });

    const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: url } });
    const gemini = await ai.models.generateContent({
      model: 'gemini-flash',
      contents: 'Weather in Paris?',
      config: { tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: parameters }] }] },
    });
    expect(gemini.functionCalls?.[0]).toMatchObject({ name: 'get_weather', args: { city: 'Weather in Paris?' } });
  });

  it('writes one usage record per call as JSON lines on stdout, and stops on SIGINT', async () => {
    const calls = 11;
    for (let i = 0; i < 50 && jsonLines(p.stdout()).length < calls; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    const all = jsonLines(p.stdout());
    expect(all.length).toBe(calls);
    for (const r of all) expect(r).toMatchObject({ schema: 1, status: 'ok', principal: { id: 'demo' } });
    const tooling = all.slice(5);
    expect(tooling.map((r) => [r.model, r.tools_declared, r.tools_invoked])).toEqual([
      ['gpt-4o-mini', ['get_weather'], ['get_weather']],
      ['gpt-4o-mini', ['get_weather'], []],
      ['claude-sonnet', ['get_weather'], ['get_weather']],
      ['claude-sonnet', ['get_weather'], ['get_weather']],
      ['gpt-4o-mini', ['get_weather'], ['get_weather']],
      ['gemini-flash', ['get_weather'], ['get_weather']],
    ]);
    const records = all.slice(0, 5);
    expect(records.map((r) => `${r.entry_format as string}→${r.upstream_format as string}`)).toEqual([
      'openai_chat→openai_chat',
      'openai_chat→anthropic_messages',
      'openai_responses→openai_responses',
      'anthropic_messages→anthropic_messages',
      'gemini_generate_content→gemini_generate_content',
    ]);
    for (const r of all) expect((r.cost_micros as { total: number }).total).toBeGreaterThan(0);
    p.kill('SIGINT');
    expect((await p.exited).code).toBe(0);
  });
});
