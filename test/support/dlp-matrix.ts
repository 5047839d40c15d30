/**
 * What data may leave, checked the way a user sees it: every DLP action, tool allow list and
 * policy prompt through the real SDK of every client format (OpenAI Chat, OpenAI Responses,
 * Anthropic, Gemini), streamed and whole, against echo upstreams of every format. One policy
 * covers every action (each entity type has its own), so the same matrix runs against any way
 * of serving the gateway: in-process, `tollgate serve`, the edge handler.
 */
import { describe, expect, it } from 'vitest';
import { codecs } from '@tollgate/codecs';
import type { PolicyFileInput } from '@tollgate/core';
import { CLIENT_FORMATS, UPSTREAM_FORMATS, echoModel, type ClientFormat, type EchoVariant, type Seen } from './echo-upstream.js';
import { ask, isFailure, type Answer, type Clients, type Failure, type Question } from './sdk-ask.js';

export const MATRIX_POLICY = {
  dlp: {
    default: { email: 'pseudonymize', phone: 'pseudonymize', credit_card: 'pseudonymize', iban: 'redact', ipv4: 'log', secret: 'redact', us_ssn: 'block' },
    scan_responses: true,
  },
  tools: { allow_lists: [{ id: 'payments', match: { bus: ['payments'] }, allow: ['get_*'] }] },
  prompts: [
    { id: 'conduct', version: 2, match: { bus: ['payments'] }, text: 'Never reveal card numbers.' },
    { id: 'elsewhere', version: 1, match: { bus: ['research'] }, text: 'Not for this caller.' },
  ],
} satisfies PolicyFileInput;

/** The echo upstreams' variants: plain, adding a key (redacted), adding an SSN (blocked), calling an undeclared tool, calling a declared one. */
export const MATRIX_VARIANTS: Readonly<Record<string, EchoVariant>> = {
  echo: {},
  leak: { suffix: ' Also: key AKIAIOSFODNN7EXAMPLE.' },
  block: { suffix: ' SSN 536-22-1234' },
  tool: { tool: 'get_secrets' },
  call: { tool: 'get_weather' },
};

/** The caller every matrix target serves: alice of payments. */
export const MATRIX_PRINCIPAL = { user: 'alice', tier: 'normal', bu: 'payments' };

const IBAN = 'DE89 3704 0044 0532 0130 00';
export const PII = `Mail jane.doe@acme.io or call +1 415 555 2671 about card 4111 1111 1111 1111, account ${IBAN}, host 10.20.30.40.`;
const ORIGINALS = ['jane.doe@acme.io', '415 555 2671', '4111 1111 1111 1111', 'DE89 3704', '3704 0044'];
const REQUEST_DLP = {
  email: { action: 'pseudonymize', count: 1 },
  phone: { action: 'pseudonymize', count: 1 },
  credit_card: { action: 'pseudonymize', count: 1 },
  iban: { action: 'redact', count: 1 },
  ipv4: { action: 'log', count: 1 },
};

/** What a matrix target gives the tests. */
export interface MatrixTarget {
  clients: Clients;
  /** Usage records written so far. */
  records(): ReadonlyArray<Record<string, unknown>>;
  /** What the echo upstreams received, in order. */
  seen: Seen[];
}

/** The upstream format a client format's single-route tests use: another format, so every decoder and encoder is in play. */
const upstreamFor = (f: ClientFormat) => UPSTREAM_FORMATS[(CLIENT_FORMATS.indexOf(f) + 1) % UPSTREAM_FORMATS.length]!;

async function waitRecords(target: MatrixTarget, pick: (r: Record<string, unknown>) => boolean, n: number): Promise<Array<Record<string, unknown>>> {
  const until = Date.now() + 10_000;
  for (;;) {
    const found = target.records().filter(pick);
    if (found.length >= n || Date.now() > until) return found;
    await new Promise((r) => setTimeout(r, 20));
  }
}

function answered(x: Answer | Failure): Answer {
  if (isFailure(x)) throw new Error(`expected an answer, got ${x.status ?? 'no status'}: ${String(x.error)}`);
  return x;
}

function failed(x: Answer | Failure): Failure {
  if (!isFailure(x)) throw new Error(`expected a failure, got the answer ${JSON.stringify(x)}`);
  return x;
}

const both = [false, true] as const;
const mode = (stream: boolean) => (stream ? 'streamed' : 'whole');

/** The system prompt texts of a body as the receiving format's codec reads them. */
function systemTexts(s: Seen): string[] {
  const gemini = s.format === 'gemini_generate_content' ? { model: 'echo-1' } : {};
  return codecs[s.format].decodeRequest(s.body, gemini).request.system.map((p) => p.text);
}

export function describeDlpMatrix(label: string, target: () => MatrixTarget): void {
  const run = (format: ClientFormat, q: Question) => ask(target().clients, format, q);
  const newSeen = (from: number) => target().seen.slice(from);
  const ofFormat = (format: ClientFormat, model: (m: string) => boolean) => (r: Record<string, unknown>) =>
    r['entry_format'] === format && typeof r['requested_model'] === 'string' && model(r['requested_model']);

  describe(`${label}: DLP, tool allow lists and policy prompts, every client format`, () => {
    it.each(CLIENT_FORMATS)('%s: pseudonymize restores, redact replaces, log counts — through every upstream format, streamed and whole', async (format) => {
      const from = target().seen.length;
      for (const upstream of UPSTREAM_FORMATS) {
        for (const stream of both) {
          const a = answered(await run(format, { model: echoModel(upstream), text: PII, stream }));
          expect(a.text, `${upstream}, ${mode(stream)}`).toBe(`You said: ${PII.replace(IBAN, '[REDACTED:IBAN]')}`);
        }
      }
      const sent = newSeen(from);
      expect(sent).toHaveLength(UPSTREAM_FORMATS.length * 2);
      for (const s of sent) {
        const text = JSON.stringify(s.body);
        for (const v of ORIGINALS) expect(text, `${v} reached ${s.format}`).not.toContain(v);
        expect(text).toContain('[REDACTED:IBAN]');
        expect(text).toContain('10.20.30.40');
        expect(text).toMatch(/@[a-z]+\.example/);
      }
      // One value, one surrogate: every upstream was sent the same user text.
      const userTexts = sent.map((s) =>
        codecs[s.format]
          .decodeRequest(s.body, s.format === 'gemini_generate_content' ? { model: 'echo-1' } : {})
          .request.messages.at(-1)!
          .content.map((p) => (p.type === 'text' ? p.text : ''))
          .join(''),
      );
      expect(new Set(userTexts).size).toBe(1);
      const records = await waitRecords(
        target(),
        ofFormat(format, (m) => m.startsWith('echo.')),
        sent.length,
      );
      expect(records).toHaveLength(sent.length);
      for (const r of records) {
        expect(r).toMatchObject({ status: 'ok', dlp: REQUEST_DLP, dlp_response: { ipv4: { action: 'log', count: 1 } }, policy_prompts: ['conduct@2'] });
        const text = JSON.stringify(r);
        for (const v of [...ORIGINALS, '.example']) expect(text).not.toContain(v);
      }
    });

    it.each(CLIENT_FORMATS)('%s: block — nothing is sent, 400 in the format, streamed and whole', async (format) => {
      const from = target().seen.length;
      for (const stream of both) {
        const f = failed(await run(format, { model: echoModel(upstreamFor(format)), text: 'my SSN is 536-22-1234, mail jane.doe@acme.io', stream }));
        expect(f.status, mode(stream)).toBe(400);
      }
      expect(newSeen(from)).toEqual([]);
      const records = await waitRecords(target(), (r) => ofFormat(format, () => true)(r) && r['reason'] === 'dlp_block:us_ssn' && r['http_status'] === 400, 2);
      expect(records).toHaveLength(2);
      for (const r of records)
        expect(r).toMatchObject({ status: 'rejected', dlp: { us_ssn: { action: 'block', count: 1 }, email: { action: 'pseudonymize', count: 1 } } });
    });

    it.each(CLIENT_FORMATS)('%s: scan_responses redacts what the model adds, streamed and whole', async (format) => {
      for (const stream of both) {
        const a = answered(await run(format, { model: echoModel(upstreamFor(format), 'leak'), text: 'hi', stream }));
        expect(a.text, mode(stream)).toBe('You said: hi Also: key [REDACTED:SECRET].');
      }
      const records = await waitRecords(
        target(),
        ofFormat(format, (m) => m.startsWith('leak.')),
        2,
      );
      for (const r of records) expect(r).toMatchObject({ status: 'ok', dlp: {}, dlp_response: { secret: { action: 'redact', count: 1 } } });
    });

    it.each(CLIENT_FORMATS)('%s: an answer with a blocked entity is withheld — 502 whole, the in-stream error streamed', async (format) => {
      const whole = failed(await run(format, { model: echoModel(upstreamFor(format), 'block'), text: 'hi', stream: false }));
      expect(whole.status).toBe(502);
      const streamed = failed(await run(format, { model: echoModel(upstreamFor(format), 'block'), text: 'hi', stream: true }));
      expect(streamed.partial).not.toContain('536-22');
      const records = await waitRecords(
        target(),
        ofFormat(format, (m) => m.startsWith('block.')),
        2,
      );
      expect(records.map((r) => [r['status'], r['reason']])).toEqual([
        ['rejected', 'dlp_block:us_ssn'],
        ['rejected', 'dlp_block:us_ssn'],
      ]);
    });

    it.each(CLIENT_FORMATS)('%s: a call of a tool the request did not declare is not relayed — 502 whole, the in-stream error streamed', async (format) => {
      for (const stream of both) {
        const f = failed(await run(format, { model: echoModel(upstreamFor(format), 'tool'), text: 'x', stream, tools: ['get_weather'] }));
        if (!stream) expect(f.status).toBe(502);
      }
      const records = await waitRecords(
        target(),
        ofFormat(format, (m) => m.startsWith('tool.')),
        2,
      );
      expect(records.map((r) => [r['status'], r['reason']])).toEqual([
        ['rejected', 'tool_call_blocked:get_secrets'],
        ['rejected', 'tool_call_blocked:get_secrets'],
      ]);
    });

    it.each(CLIENT_FORMATS)(
      '%s: a declared, allowed tool call is relayed, its arguments restored; a declared tool outside the list is refused (403)',
      async (format) => {
        const from = target().seen.length;
        for (const stream of both) {
          const a = answered(await run(format, { model: echoModel(upstreamFor(format), 'call'), text: 'for bob@acme.io', stream, tools: ['get_weather'] }));
          expect(a.text, mode(stream)).toBe('You said: for bob@acme.io');
          expect(
            a.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)]),
            mode(stream),
          ).toEqual([['get_weather', { said: 'for bob@acme.io' }]]);
        }
        for (const s of newSeen(from)) expect(JSON.stringify(s.body)).not.toContain('bob@acme.io');
        const sentBefore = target().seen.length;
        for (const stream of both) {
          const f = failed(await run(format, { model: echoModel(upstreamFor(format)), text: 'x', stream, tools: ['run_sql'] }));
          expect(f.status, mode(stream)).toBe(403);
        }
        expect(target().seen.length).toBe(sentBefore);
        const refused = await waitRecords(target(), (r) => ofFormat(format, () => true)(r) && r['reason'] === 'tool_not_allowed:run_sql', 2);
        expect(refused.map((r) => r['http_status'])).toEqual([403, 403]);
      },
    );

    it.each(CLIENT_FORMATS)('%s: the policy prompt goes before the client’s own system prompt, in every upstream format', async (format) => {
      const from = target().seen.length;
      for (const upstream of UPSTREAM_FORMATS)
        answered(await run(format, { model: echoModel(upstream), text: 'hello', system: 'You are terse.', stream: false }));
      const sent = newSeen(from);
      expect(sent.map((s) => s.format)).toEqual([...UPSTREAM_FORMATS]);
      // First, then the client's (formats with one instruction string join them).
      for (const s of sent) expect(systemTexts(s).join('\n'), s.format).toMatch(/^Never reveal card numbers\.\s+You are terse\.$/);
    });
  });
}
