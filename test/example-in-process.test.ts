/**
 * The README's in-process program is examples/in-process/main.ts, verbatim, and it runs as
 * written: an OpenAI client reaching Claude through `gateway.fetch`, the registry and policy
 * loaded from YAML. Here the Anthropic API is a local mock replaying a recorded answer.
 * (`tsc --build`, run by CI, type-checks the program with everything under examples/.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replay, startMockUpstream, type MockUpstream } from './support/mock-upstream.js';
import { fixtureText } from './support/fixtures.js';
import { REPO, jsonLines, spawnTs } from './cli-support.js';

const PROGRAM = join(REPO, 'examples/in-process/main.ts');
let upstream: MockUpstream;

beforeAll(async () => {
  upstream = await startMockUpstream({ anthropic: replay('anthropic-messages/stream-text.sse', 'anthropic-messages/response-cache-read.json') });
});
afterAll(async () => {
  await upstream?.close();
});

describe('examples/in-process', () => {
  it('is the program the README shows, verbatim', () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks).toContain(readFileSync(PROGRAM, 'utf8'));
  });

  it('runs as written: prints the answer and writes one priced usage record', async () => {
    const p = spawnTs([PROGRAM], { env: { ANTHROPIC_BASE_URL: `${upstream.url}/anthropic`, ANTHROPIC_API_KEY: 'sk-ant-example-0001' } });
    const { code } = await p.exited;
    expect(
      p
        .stderr()
        .split('\n')
        .filter((l) => l !== '' && !l.startsWith('{')),
    ).toEqual([]);
    expect(code).toBe(0);
    const recorded = JSON.parse(fixtureText('anthropic-messages/response-cache-read.json')) as { content: Array<{ text: string }> };
    expect(p.stdout().trim()).toBe(recorded.content[0]!.text);
    const records = jsonLines(p.stderr());
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      status: 'ok',
      principal: { id: 'alice', tier: 'normal' },
      entry_format: 'openai_chat',
      upstream_format: 'anthropic_messages',
      model: 'claude-sonnet',
      // The replayed answer was recorded for a prompt of ~1,500 cached tokens; this request is a
      // sentence, so what it could not have used is held to its prompt bound (and not believed).
      usage: { output: 33, measured: false },
    });
    expect((records[0]!.cost_micros as { total: number }).total).toBeGreaterThan(0);
    expect(upstream.hits('anthropic')).toBe(1);
  });
});
