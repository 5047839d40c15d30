/**
 * A loopback OpenAI Chat upstream for adapter and CLI tests that streams slowly and reports
 * when the gateway closed its connection. Paths:
 *   /<prefix>/v1/chat/completions with `"stream": true` and the scenario named by the prefix:
 *     `endless` — one chunk every `tickMs` until the connection closes;
 *     `long`    — `ticks` chunks `tickMs` apart, then finish, usage and [DONE];
 *     `late`    — the head at once, then nothing for `lateMs`, then as `long`;
 *   anything else (or no `stream`) — a short JSON answer.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface UpstreamCall {
  path: string;
  body: Record<string, unknown>;
  /** Chunks written so far. */
  sent: number;
  /** Resolves when the gateway closed the connection (or the answer ended). */
  closed: Promise<void>;
  /** True when the connection closed before the answer ended. */
  cut: boolean;
}

export interface SlowUpstream {
  url: string;
  calls: UpstreamCall[];
  close(): Promise<void>;
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-slow', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

const usageChunk = (output: number) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-slow', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 12, completion_tokens: output, total_tokens: 12 + output } })}\n\n`;

export async function startSlowUpstream(options: { tickMs?: number; ticks?: number; lateMs?: number } = {}): Promise<SlowUpstream> {
  const tickMs = options.tickMs ?? 20;
  const ticks = options.ticks ?? 40;
  const calls: UpstreamCall[] = [];
  const server = createServer((req, res) => void serve(req, res));

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const text = Buffer.concat(parts).toString('utf8');
    const body = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
    let resolveClosed!: () => void;
    const call: UpstreamCall = { path: req.url ?? '/', body, sent: 0, closed: new Promise((r) => (resolveClosed = r)), cut: false };
    calls.push(call);
    res.on('close', () => {
      call.cut = !res.writableFinished;
      resolveClosed();
    });
    const scenario = call.path.split('/')[1];
    if (body.stream !== true) {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          id: 'chatcmpl-slow',
          object: 'chat.completion',
          created: 1,
          model: 'gpt-4o-mini',
          choices: [{ index: 0, message: { role: 'assistant', content: 'short answer' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 },
        }),
      );
      return;
    }
    res.setHeader('content-type', 'text/event-stream');
    res.flushHeaders();
    if (scenario === 'late') await new Promise((r) => setTimeout(r, options.lateMs ?? 300));
    if (res.destroyed) return;
    res.write(chunk({ role: 'assistant', content: '' }));
    const limit = scenario === 'endless' ? Number.POSITIVE_INFINITY : ticks;
    for (let i = 0; i < limit && !res.destroyed; i++) {
      await new Promise((r) => setTimeout(r, tickMs));
      if (res.destroyed) break;
      res.write(chunk({ content: `tick${i} ` }));
      call.sent++;
    }
    if (res.destroyed) return;
    res.write(chunk({}, 'stop'));
    res.write(usageChunk(call.sent));
    res.end('data: [DONE]\n\n');
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Poll until `check` returns a value that is not undefined (or throw after `timeoutMs`). */
export async function eventually<T>(check: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('timed out waiting for a condition');
    await new Promise((r) => setTimeout(r, 10));
  }
}
