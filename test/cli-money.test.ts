/**
 * The money commands over usage records a real gateway wrote: `tollgate report` (totals equal a
 * hand sum to the micro-dollar, from a JSON-lines file and from a Postgres table alike; broken
 * lines and foreign rows skipped, counted and named), `tollgate what-if` (the enforced policy as
 * candidate agrees with every live decision; a stricter one lists what it would refuse, with the
 * rule and the spend avoided) and `tollgate explain` (rule, window, counter, threshold).
 */
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createGateway, createMemoryStore, type PolicyFileInput, type UsageRecord } from '@tollgate/core';
import { createJsonLinesSink } from '@tollgate/adapters-node';
import { createPostgresSink } from '@tollgate/adapters-node/postgres';
import { runCli as runCliInProcess } from '../packages/adapters-node/src/cli/run.js';
import { serviceGate } from '../packages/adapters-node/src/testing/services.js';
import { SECRETS, keysFor, testRegistry } from './support/gateway-fixture.js';
import { replay, startMockUpstream, status, type MockUpstream } from './support/mock-upstream.js';
import { runCli } from './cli-support.js';

const postgres = await serviceGate('postgres');
const dir = mkdtempSync(join(tmpdir(), 'tollgate-money-'));
const usageFile = join(dir, 'usage.jsonl');
const registryFile = join(dir, 'registry.yaml');
const policyFile = join(dir, 'policy.yaml');
const TABLE = `tollgate_usage_money_${crypto.randomUUID().replaceAll('-', '').slice(0, 10)}`;

const POLICY = {
  spend: {
    rules: [{ id: 'opus-cap', matches: [{ match: { scope: 'claude-opus', window: 'daily', at_or_above_usd: '0.06' }, actions: [{ type: 'block' }] }] }],
  },
  rate_limits: [{ id: 'bob-rpm', match: { users: ['bob'] }, rpm: 2 }],
} satisfies PolicyFileInput;

let upstream: MockUpstream;
let records: UsageRecord[] = [];

async function cli(args: string[]) {
  let out = '';
  let err = '';
  const code = await runCliInProcess(args, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

beforeAll(async () => {
  upstream = await startMockUpstream({
    anthropic: replay('anthropic-messages/stream-text.sse', 'anthropic-messages/response-cache-read.json'),
    // A request saying "please-fail" gets a 500; one saying "go-slow" a slow stream (cancelled by its client).
    openai: (request, body) => {
      const text = JSON.stringify(body.messages);
      if (text.includes('please-fail')) return status(500, { error: { message: 'boom', type: 'server_error' } })(request, body);
      const slowly = text.includes('go-slow');
      return replay(
        'openai-chat/stream-text.sse',
        'openai-chat/response-text.json',
        slowly ? { chunkSize: 32, delayMs: 40 } : { chunkSize: 1024 },
      )(request, body);
    },
  });
  const registry = testRegistry(upstream.url);
  writeFileSync(registryFile, stringify(registry));
  writeFileSync(policyFile, stringify(POLICY));
  const ids = await keysFor({ user: 'alice', tier: 'normal', bu: 'payments' }, { user: 'bob', tier: 'normal', bu: 'research' });
  const sink = createJsonLinesSink({ path: usageFile });
  const gateway = createGateway({ registry, policy: POLICY, identity: ids.identity, secrets: SECRETS, usage: sink });
  const post = (user: string, body: unknown, signal?: AbortSignal) =>
    gateway.handle(
      new Request('http://gw/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ids.keys[user]!}` },
        body: JSON.stringify(body),
        ...(signal === undefined ? {} : { signal }),
      }),
    );
  // As large as the requests the recorded answers billed (a cached system prompt of ~1,500
  // tokens, up to 377 output tokens): usage past a request's bounds is not believed.
  const system = { role: 'system', content: 'You are a careful assistant. '.repeat(80) };
  const chat = (model: string, extra: Record<string, unknown> = {}) => ({
    model,
    max_tokens: model === 'gpt-mini' ? 400 : 200,
    messages: [system, { role: 'user', content: 'hello' }],
    ...extra,
  });
  // alice: opus until the daily cap refuses, sonnet, a stream; bob: past his rpm; someone unknown.
  for (let i = 0; i < 5; i++) await (await post('alice', chat('claude-opus'))).text();
  await (await post('alice', chat('claude-sonnet'))).text();
  await (await post('alice', chat('gpt-mini', { stream: true }))).text();
  // An upstream failure (no cost) and a stream its client cancelled (charged the gateway's estimate).
  await (await post('alice', { ...chat('gpt-mini'), messages: [system, { role: 'user', content: 'please-fail' }] })).text();
  const leaving = new AbortController();
  const cancelled = await post('alice', { ...chat('gpt-mini', { stream: true }), messages: [system, { role: 'user', content: 'go-slow' }] }, leaving.signal);
  const reader = cancelled.body!.getReader();
  await reader.read();
  leaving.abort();
  await reader.cancel().catch(() => {});
  for (let i = 0; i < 3; i++) await (await post('bob', chat('gpt-mini'))).text();
  await (await post('bob', chat('no-such-model'))).text();
  await gateway.close();
  records = jsonl(usageFile);
});

afterAll(async () => {
  await upstream?.close();
  if (!postgres.skip) {
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await admin.end();
  }
});

function jsonl(file: string): UsageRecord[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as UsageRecord);
}

describe('the traffic the commands read', () => {
  it('has admitted, capped, rate-limited, failed, cancelled and unknown-model requests, each record with its decision', () => {
    expect(records).toHaveLength(13);
    const count = (status: string) => records.filter((r) => r.status === status).length;
    expect([count('cancelled'), count('upstream_error')]).toEqual([1, 1]);
    expect(count('ok') + count('rejected')).toBe(11);
    // The cancelled stream was charged the gateway's estimate; the failed call nothing.
    expect(records.find((r) => r.status === 'cancelled')!.cost_micros!.total).toBeGreaterThan(0);
    expect(records.find((r) => r.status === 'cancelled')!.usage!.measured).toBe(false);
    expect(records.find((r) => r.status === 'upstream_error')!.cost_micros?.total ?? 0).toBe(0);
    const reasons = records.map((r) => r.reason);
    expect(reasons.filter((r) => r === 'spend_limit:opus-cap').length).toBeGreaterThan(0);
    expect(reasons.filter((r) => r === 'rate_limit:bob-rpm')).toHaveLength(1);
    expect(reasons).toContain('model_not_found');
    const capped = records.find((r) => r.reason === 'spend_limit:opus-cap')!;
    expect(capped.decision!.spend[0]).toMatchObject({
      rule: 'opus-cap',
      action: 'block',
      scope: 'claude-opus',
      window: 'daily',
      limit_micros: 60_000,
      enforced: true,
    });
    expect(capped.decision!.limiting).toMatchObject({ rule: 'opus-cap', limit_micros: 60_000 });
    expect(capped.decision!.spend[0]!.used_micros + capped.decision!.worst_case_micros).toBeGreaterThan(60_000);
    expect(records.find((r) => r.principal?.id === 'bob')!.decision!.rate).toEqual([
      { rule: 'bob-rpm', kind: 'requests', limit: 2, window_ms: 60_000, amount: 1 },
    ]);
  });
});

describe('tollgate report', () => {
  it('totals by user and model equal a hand sum of the records, rejections counted apart', async () => {
    const r = await cli(['report', '--usage', `file:${usageFile}`, '--by', 'user,model', '--format', 'json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out) as { rows: Array<Record<string, string | number>>; totals: Record<string, number | string> };
    const spend = records.reduce((n, x) => n + (x.cost_micros?.total ?? 0), 0);
    expect(out.totals.spend_micros).toBe(spend);
    expect(out.totals.spend_usd).toBe(`${Math.floor(spend / 1e6)}.${String(spend % 1e6).padStart(6, '0')}`);
    expect(out.totals.rejected).toBe(records.filter((x) => x.status === 'rejected').length);
    expect(out.totals.requests).toBe(records.filter((x) => x.status !== 'rejected').length);
    expect(out.totals.output).toBe(records.reduce((n, x) => n + (x.usage?.output ?? 0), 0));
    expect(out.totals.input).toBe(records.reduce((n, x) => n + (x.usage?.input ?? 0), 0));
    expect(out.totals.cache_write).toBe(records.reduce((n, x) => n + (x.usage?.cache_write ?? 0) + (x.usage?.cache_write_1h ?? 0), 0));
    expect([out.totals.ok, out.totals.cancelled, out.totals.failed]).toEqual([records.filter((x) => x.status === 'ok').length, 1, 1]);
    expect(out.totals.estimated).toBe(records.filter((x) => x.usage?.measured === false).length);
    for (const row of out.rows) {
      const mine = records.filter((x) => (x.principal?.id ?? '-') === row.user && (x.model ?? '-') === row.model);
      expect(row.spend_micros).toBe(mine.reduce((n, x) => n + (x.cost_micros?.total ?? 0), 0));
      expect(row.rejected).toBe(mine.filter((x) => x.status === 'rejected').length);
    }
    expect(out.rows.reduce((n, row) => n + (row.spend_micros as number), 0)).toBe(spend);
  });

  it('as a table and CSV from the real executable, by day', async () => {
    const table = await runCli(['report', '--usage', `file:${usageFile}`, '--by', 'day']);
    expect(table.code).toBe(0);
    const day = records[0]!.ts.slice(0, 10);
    expect(table.stdout).toMatch(new RegExp(`^day\\s+requests\\s+rejected`, 'm'));
    const admitted = records.filter((x) => x.status !== 'rejected').length;
    const rejected = records.length - admitted;
    expect(table.stdout).toMatch(new RegExp(`^${day}\\s+${admitted}\\s+${rejected}\\s`, 'm'));
    expect(table.stdout).toMatch(/^TOTAL\s/m);
    const csv = await cli(['report', '--usage', `file:${usageFile}`, '--by', 'user', '--format', 'csv']);
    expect(csv.out.split('\n')[0]).toBe('user,requests,rejected,ok,cancelled,failed,input,output,cache_read,cache_write,reasoning,spend_usd');
  });

  it('skips malformed lines and foreign JSON, names them, and still makes the report', async () => {
    const broken = join(dir, 'broken.jsonl');
    writeFileSync(broken, '');
    for (const r of records.slice(0, 4)) appendFileSync(broken, `${JSON.stringify(r)}\n`);
    appendFileSync(broken, '{"truncated": \n');
    appendFileSync(broken, `${JSON.stringify({ log: 'access', method: 'POST', status: 200 })}\n`);
    appendFileSync(broken, `${JSON.stringify({ hello: 'world' })}\n`);
    for (const r of records.slice(4)) appendFileSync(broken, `${JSON.stringify(r)}\n`);
    const r = await cli(['report', '--usage', `file:${broken}`, '--format', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).totals.spend_micros).toBe(records.reduce((n, x) => n + (x.cost_micros?.total ?? 0), 0));
    expect(r.err).toMatch(
      /skipped 3 line\(s\) or row\(s\) of .* that are not usage records: line 5: not JSON; line 6: an access-log line; line 7: no "schema"/,
    );
  });

  it('skips records whose figures are not what the gateway writes, so no total turns into text, NaN or a negative', async () => {
    const damaged = join(dir, 'damaged.jsonl');
    const base = records.find((r) => r.status === 'ok' && r.usage !== null)!;
    const bad = [
      { ...base, request_id: 'bad-string', usage: { ...base.usage!, input: '10' } },
      { ...base, request_id: 'bad-missing', usage: { ...base.usage!, cache_write_1h: undefined } },
      { ...base, request_id: 'bad-negative', cost_micros: { ...base.cost_micros!, total: -5000 } },
      { ...base, request_id: 'bad-model', model: 7 },
      { ...base, request_id: 'bad-principal', principal: 'alice' },
      { ...base, request_id: 'bad-duration', duration_ms: 'slow' },
    ];
    writeFileSync(damaged, [...records, ...bad].map((r) => JSON.stringify(r)).join('\n') + '\n');
    const r = await cli(['report', '--usage', `file:${damaged}`, '--by', 'model', '--format', 'json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out) as { totals: Record<string, number>; rows: Array<Record<string, unknown>>; skipped: { count: number } };
    expect(out.totals.spend_micros).toBe(records.reduce((n, x) => n + (x.cost_micros?.total ?? 0), 0));
    expect(out.totals.input).toBe(records.reduce((n, x) => n + (x.usage?.input ?? 0), 0));
    expect(out.totals.cache_write).toBe(records.reduce((n, x) => n + (x.usage?.cache_write ?? 0) + (x.usage?.cache_write_1h ?? 0), 0));
    for (const row of out.rows) expect(typeof row.model).toBe('string');
    expect(out.skipped.count).toBe(6);
    expect(r.err).toMatch(
      /usage\.input is not a non-negative integer; .*usage\.cache_write_1h is not a non-negative integer; .*cost_micros\.total is not a non-negative integer; .*model is not a string; .*principal is not an object/,
    );
  });

  it('reports a missing file and a bad --by clearly', async () => {
    const missing = await cli(['report', '--usage', `file:${join(dir, 'nope.jsonl')}`]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/report: cannot read .*nope\.jsonl: no such file/);
    const bad = await cli(['report', '--usage', `file:${usageFile}`, '--by', 'colour']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--by: unknown key "colour"/);
  });

  it.skipIf(postgres.skip)('reads a Postgres usage table in pages, skipping foreign rows, with the same totals', async () => {
    postgres.assertUp();
    const sink = createPostgresSink({ connectionString: postgres.url, table: TABLE });
    for (const r of records) sink.write(r);
    await sink.close();
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query(`INSERT INTO ${TABLE} (request_id, ts, record) VALUES ('foreign-1', now(), '{"event":"something else"}'::jsonb)`);
    await admin.end();
    const r = await cli(['report', '--usage', postgres.url, '--table', TABLE, '--by', 'user,model', '--format', 'json']);
    expect(r.code).toBe(0);
    const fromFile = JSON.parse((await cli(['report', '--usage', `file:${usageFile}`, '--by', 'user,model', '--format', 'json'])).out);
    const fromTable = JSON.parse(r.out);
    expect(fromTable.totals).toEqual(fromFile.totals);
    expect(fromTable.rows).toEqual(fromFile.rows);
    expect(r.err).toMatch(/skipped 1 line\(s\) or row\(s\) .* row foreign-1: no "schema"/);
    // --since / --until select by ts.
    const later = await cli(['report', '--usage', postgres.url, '--table', TABLE, '--since', '2999-01-01', '--format', 'json']);
    expect(JSON.parse(later.out).totals.requests).toBe(0);
  });
});

describe('tollgate what-if', () => {
  it('with the enforced policy as candidate, agrees with every live decision', async () => {
    const r = await cli(['what-if', '--policy', policyFile, '--registry', registryFile, '--usage', `file:${usageFile}`, '--format', 'json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out) as { replayed: number; differences: unknown[]; not_replayed: Record<string, number> };
    expect(out.differences).toEqual([]);
    expect(out.replayed).toBe(12);
    expect(out.not_replayed).toEqual({ 'refused outside the policy: model_not_found': 1 });
  });

  it('with --since inside a window, the counters are rebuilt from the window’s start: still no difference', async () => {
    // From the first refusal of the daily opus cap on: the spend that filled the cap came before.
    const firstRefused = records
      .filter((x) => x.reason === 'spend_limit:opus-cap')
      .map((x) => x.ts)
      .sort()[0]!;
    const r = await cli([
      'what-if',
      '--policy',
      policyFile,
      '--registry',
      registryFile,
      '--usage',
      `file:${usageFile}`,
      '--since',
      firstRefused,
      '--format',
      'json',
    ]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out) as { replayed: number; differences: unknown[]; warm_up: { from: string; records: number } };
    expect(out.differences).toEqual([]);
    const from = records.filter((x) => x.ts >= firstRefused);
    expect(out.replayed).toBe(from.filter((x) => x.reason !== 'model_not_found').length);
    // The day's earlier requests were replayed to rebuild the counters, and not reported.
    expect(out.warm_up).toEqual({ from: `${firstRefused.slice(0, 10)}T00:00:00.000Z`, records: records.length - from.length });
    const text = await cli(['what-if', '--policy', policyFile, '--registry', registryFile, '--usage', `file:${usageFile}`, '--since', firstRefused]);
    expect(text.out).toContain(`counters rebuilt from ${firstRefused.slice(0, 10)}T00:00:00.000Z`);
  });

  it('decides each request when the gateway admitted it, not when it arrived: a rate window boundary in between agrees too', async () => {
    // A scripted clock: a request arrives at `clock`, and the filter stage (between arrival and
    // admission) moves the clock on, as a slow JWKS fetch or a large body would.
    const minute = Math.floor(Date.parse('2026-11-30T10:00:30Z') / 60_000) * 60_000;
    let clock = 0;
    const store = createMemoryStore({ now: () => clock, sweepIntervalMs: 0 });
    const policy = { rate_limits: [{ id: 'one-a-minute', match: { users: ['carol'] }, rpm: 1 }] };
    const ids = await keysFor({ user: 'carol', tier: 'normal' });
    const file = join(dir, 'boundary.jsonl');
    const sink = createJsonLinesSink({ path: file });
    let delay = 0;
    const gateway = createGateway({
      registry: testRegistry(upstream.url),
      policy,
      identity: ids.identity,
      secrets: SECRETS,
      usage: sink,
      store,
      now: () => clock,
      filters: [{ name: 'slow', apply: (ir) => ((clock += delay), ir) }],
    });
    const post = async (arrival: number, admittedAfter: number) => {
      clock = arrival;
      delay = admittedAfter;
      const res = await gateway.handle(
        new Request('http://gw/v1/chat/completions', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${ids.keys.carol!}` },
          body: JSON.stringify({ model: 'gpt-mini', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
        }),
      );
      await res.text();
      return res.status;
    };
    // Arrives in minute M, admitted in minute M+1; the next, in M+1, finds the minute's one request taken.
    expect(await post(minute + 59_990, 30)).toBe(200);
    expect(await post(minute + 60_500, 0)).toBe(429);
    await gateway.close();
    await store.close();
    const live = jsonl(file);
    expect(live[0]!.decision!.at_ms).toBe(30);
    const candidate = join(dir, 'one-a-minute.yaml');
    writeFileSync(candidate, stringify(policy));
    const r = await cli(['what-if', '--policy', candidate, '--registry', registryFile, '--usage', `file:${file}`, '--format', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).differences).toEqual([]);
  });

  it('a stricter candidate lists what it would refuse, with the rule and the spend avoided; a looser one what it would admit', async () => {
    const strict = join(dir, 'strict.yaml');
    writeFileSync(
      strict,
      stringify({
        ...POLICY,
        spend: {
          rules: [
            ...POLICY.spend.rules,
            {
              id: 'sonnet-off',
              matches: [{ match: { scope: 'claude-sonnet', window: 'monthly', at_or_above_usd: '0.000001' }, actions: [{ type: 'block' }] }],
            },
          ],
        },
        rate_limits: [],
      }),
    );
    const r = await cli(['what-if', '--policy', strict, '--registry', registryFile, '--usage', `file:${usageFile}`, '--format', 'json']);
    const out = JSON.parse(r.out) as { differences: Array<Record<string, unknown>>; summary: Record<string, number> };
    const sonnet = records.find((x) => x.model === 'claude-sonnet')!;
    const refused = out.differences.filter((d) => d.change === 'refused');
    expect(refused).toEqual([
      expect.objectContaining({ request_id: sonnet.request_id, candidate: 'refused (spend_limit:sonnet-off)', delta_micros: -sonnet.cost_micros!.total }),
    ]);
    // Without bob's rate limit, his third request is admitted (cost unknown: it was never sent).
    const admitted = out.differences.filter((d) => d.change === 'admitted');
    expect(admitted).toEqual([
      expect.objectContaining({ principal: 'bob', enforced: 'refused (rate_limit:bob-rpm)', candidate: 'admitted', delta_micros: null }),
    ]);
    expect(out.summary.delta_micros).toBe(-sonnet.cost_micros!.total);
    const text = await cli(['what-if', '--policy', strict, '--registry', registryFile, '--usage', `file:${usageFile}`]);
    expect(text.out).toMatch(/12 requests replayed; 2 decided otherwise: 1 refused, 1 admitted/);
    expect(text.out).toMatch(/spend_limit:sonnet-off/);
  });
});

describe('tollgate explain', () => {
  it('shows the rule, window, counter and threshold that refused a request', async () => {
    const capped = records.find((r) => r.reason === 'spend_limit:opus-cap')!;
    const s = capped.decision!.spend[0]!;
    const r = await cli(['explain', '--usage', `file:${usageFile}`, '--policy', policyFile, capped.request_id]);
    expect(r.code).toBe(0);
    const usd = (n: number) => `${Math.floor(n / 1e6)}.${String(n % 1e6).padStart(6, '0')}`;
    expect(r.out).toContain(`opus-cap: block on claude-opus, daily window ${s.window_key}: counted ${usd(s.used_micros)}`);
    expect(r.out).toContain(`of 0.060000 USD — REFUSED here`);
    expect(r.out).toMatch(/policy: sha256:[0-9a-f]{64} \(the --policy file is this revision\)/);
    expect(r.out).toContain('"id":"opus-cap"');
    const ok = records.find((x) => x.model === 'claude-opus' && x.status === 'ok')!;
    expect((await cli(['explain', '--usage', `file:${usageFile}`, ok.request_id])).out).toMatch(/opus-cap: .* — within/);
    const missing = await cli(['explain', '--usage', `file:${usageFile}`, 'req_nope']);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/no usage record req_nope/);
  });
});
