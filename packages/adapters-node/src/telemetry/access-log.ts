/**
 * `log: { access: stdout }`: one JSON line per answered request, written when the answer ends
 * (or the client leaves). It holds what an operator needs to find a request — never its body,
 * never the query string (Gemini clients may put their key there), never a credential.
 * Lines are queued (bounded) and written at least every second; a full queue drops and counts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Batcher, type SinkStats } from '../sinks/batcher.js';

/** What the gateway answered, when it answered (null: it did not, e.g. a refusal while draining). */
export type Answered = { status: number; requestId: string | null } | null;

export interface AccessLog {
  /**
   * Watch one request; its line is written when its answer is over and `handled` (the gateway's
   * handling of it) settled: a client that left before the answer's head still gets the status
   * and request id the gateway answered with (499 and the id of its usage record, say).
   */
  track(req: IncomingMessage, res: ServerResponse, handled?: Promise<Answered>): void;
  stats(): SinkStats;
  close(): Promise<void>;
}

export interface AccessLine {
  log: 'access';
  ts: string;
  request_id: string | null;
  method: string;
  path: string;
  status: number;
  /** False when the client left before the answer was complete. */
  completed: boolean;
  duration_ms: number;
  bytes_out: number;
  remote: string | null;
  user_agent: string | null;
  server_timing: string | null;
}

const header = (res: ServerResponse, name: string): string | null => {
  const v = res.getHeader(name);
  return v === undefined ? null : String(v);
};

export function createAccessLog(stream: NodeJS.WritableStream = process.stdout, onError: (error: unknown) => void = () => {}): AccessLog {
  const batcher = new Batcher<string>({
    maxQueue: 10_000,
    batchSize: 500,
    flushIntervalMs: 1000,
    onError,
    send: (lines) =>
      new Promise<void>((resolve, reject) => {
        stream.write(lines.join(''), (error?: Error | null) => (error ? reject(error) : resolve()));
      }),
  });
  return {
    track(req, res, handled) {
      const started = performance.now();
      const at = Date.now();
      const socket = req.socket;
      const sentBefore = socket.bytesWritten;
      res.once('close', () => {
        const sent = res.headersSent;
        const line: AccessLine = {
          log: 'access',
          ts: new Date(at).toISOString(),
          request_id: header(res, 'x-tollgate-request-id'),
          method: req.method ?? '',
          path: (req.url ?? '/').split('?')[0]!.slice(0, 2048),
          // Nothing was sent: not the 200 Node starts with, but what the gateway answered, or 499
          // (the client closed the request) when it has not.
          status: sent ? res.statusCode : 499,
          completed: res.writableFinished,
          duration_ms: Math.round((performance.now() - started) * 10) / 10,
          bytes_out: Math.max(0, socket.bytesWritten - sentBefore),
          remote: socket.remoteAddress ?? null,
          user_agent: req.headers['user-agent']?.slice(0, 512) ?? null,
          server_timing: header(res, 'server-timing'),
        };
        const write = (answered: Answered) => {
          if (!sent && answered !== null) line.status = answered.status;
          line.request_id ??= answered?.requestId ?? null;
          batcher.push(`${JSON.stringify(line)}\n`);
        };
        if (handled === undefined || sent) write(null);
        else void handled.then(write, () => write(null));
      });
    },
    stats: () => batcher.stats(),
    close: () => batcher.close(),
  };
}
