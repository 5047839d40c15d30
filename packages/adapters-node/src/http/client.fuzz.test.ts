/**
 * The built-in HTTP/1.1 client against llhttp (through undici, which the transport uses for
 * proxies and HTTP/2), on the same byte streams: generated responses — framing by length,
 * chunks (extensions, trailers, sizes in either case and with leading zeros) or the end of the
 * connection, interim heads, repeated headers — and faults a hostile or broken upstream sends:
 * obsolete line folding, bare CR or LF, NUL, both framings at once, differing lengths, bad chunk
 * sizes, a chunk without its CRLF, oversized heads, bad status lines, chunked not last. Each
 * stream is sent cut at random points. Both must accept it alike (same status, headers and body)
 * or both refuse it; the few places where they differ on purpose are spelled out below.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import fc from 'fast-check';
import { Client as UndiciClient, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from './client.js';

interface Outcome {
  ok: boolean;
  status?: number;
  /** Header fields as `name: value` lines, names lowercased, in order. */
  headers?: string[];
  body?: string;
}

/** A response as bytes, and where to cut it into separate writes. */
interface Case {
  bytes: Buffer;
  cuts: number[];
  label: string;
}

let server: Server;
let port = 0;
/**
 * The cases being answered, by the request path that asks for them (`/case/<n>`): each
 * connection answers the case its own request names, so a case still running when a test
 * gives up (a timeout under load) cannot answer for the next one.
 */
const cases = new Map<string, Case>();
let nextCase = 0;

beforeAll(async () => {
  server = createServer((socket: Socket) => {
    socket.on('error', () => {});
    let seen = Buffer.alloc(0);
    const onData = (data: Buffer) => {
      seen = Buffer.concat([seen, data]);
      const end = seen.indexOf('\r\n\r\n');
      if (end === -1) return;
      const answer = cases.get(/^POST (\S+) /.exec(seen.toString('latin1', 0, end))?.[1] ?? '');
      if (answer === undefined) {
        socket.destroy();
        return;
      }
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(seen.toString('latin1', 0, end))?.[1] ?? 0);
      if (seen.length < end + 4 + length) return;
      socket.off('data', onData);
      socket.resume();
      void (async () => {
        let from = 0;
        for (const cut of [...answer.cuts, answer.bytes.length]) {
          if (cut <= from) continue;
          socket.write(answer.bytes.subarray(from, cut));
          from = cut;
          await new Promise((r) => setImmediate(r));
        }
        socket.end();
      })();
    };
    socket.on('data', onData);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

const REQUEST = { method: 'POST', headers: ['content-type', 'application/json'], body: '{"a":1}' };

async function builtIn(path: string): Promise<Outcome> {
  const client = new Client({ idleTimeoutMs: 1, timeoutMs: 2000, maxSocketsPerOrigin: 1 });
  try {
    const answer = await client.request({ secure: false, hostname: '127.0.0.1', port, signal: undefined, ...REQUEST, path });
    const parts: Buffer[] = [];
    if (answer.body !== null) for await (const chunk of answer.body) parts.push(Buffer.from(chunk));
    const headers: string[] = [];
    for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) headers.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
    return { ok: true, status: answer.status, headers, body: Buffer.concat(parts).toString('latin1') };
  } catch {
    return { ok: false };
  } finally {
    client.close();
  }
}

async function llhttp(path: string): Promise<Outcome> {
  const client = new UndiciClient(`http://127.0.0.1:${port}`, { maxHeaderSize: 64 * 1024, headersTimeout: 2000, bodyTimeout: 2000, pipelining: 1 });
  try {
    return await new Promise<Outcome>((resolve) => {
      let status = 0;
      let headers: string[] = [];
      const body: Buffer[] = [];
      const handler: Dispatcher.DispatchHandler = {
        onConnect() {},
        onHeaders(code, raw) {
          if (code < 200) return true;
          status = code;
          headers = [];
          for (let i = 0; i + 1 < raw.length; i += 2) headers.push(`${raw[i]!.toString('latin1').toLowerCase()}: ${raw[i + 1]!.toString('latin1')}`);
          return true;
        },
        onData(chunk) {
          body.push(chunk);
          return true;
        },
        onComplete() {
          resolve({ ok: true, status, headers, body: Buffer.concat(body).toString('latin1') });
        },
        onError() {
          resolve({ ok: false });
        },
      };
      client.dispatch({ ...REQUEST, path, method: 'POST', headers: { 'content-type': 'application/json' } }, handler);
    });
  } finally {
    await client.destroy();
  }
}

async function both(c: Case): Promise<{ own: Outcome; ref: Outcome }> {
  const path = `/case/${nextCase++}`;
  cases.set(path, c);
  try {
    const own = await builtIn(path);
    const ref = await llhttp(path);
    return { own, ref };
  } finally {
    cases.delete(path);
  }
}

// ---- generated responses ----

const token = fc
  .stringMatching(/^[a-z][a-z0-9-]{0,11}$/)
  .filter((t) => !['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'content-encoding', 'trailer', 'upgrade'].includes(t));
const fieldValue = fc.stringMatching(/^[!-~]([ !-~]{0,30}[!-~])?$/);
const header = fc.tuple(token, fieldValue);
const bodyText = fc.stringMatching(/^[ -~\n]{0,300}$/);
const reason = fc.constantFrom('OK', '', 'Created', 'Weird Reason Phrase', 'Too Many Requests');

type Framing =
  | { kind: 'length' }
  | { kind: 'chunked'; sizes: number[]; upper: boolean; zeros: boolean; ext: string[]; trailers: Array<[string, string]> }
  | { kind: 'close' };

const framing: fc.Arbitrary<Framing> = fc.oneof(
  fc.constant({ kind: 'length' } as const),
  fc.record({
    kind: fc.constant('chunked' as const),
    sizes: fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 6 }),
    upper: fc.boolean(),
    zeros: fc.boolean(),
    ext: fc.array(fc.constantFrom('', ';a=b', ';name', ';q="quoted"', ';x=1;y=2'), { minLength: 6, maxLength: 6 }),
    trailers: fc.array(header, { maxLength: 2 }),
  }),
  fc.constant({ kind: 'close' } as const),
);

interface Model {
  interim: Array<[102 | 103, Array<[string, string]>]>;
  status: number;
  reason: string;
  headers: Array<[string, string]>;
  framing: Framing;
  body: string;
}

const model: fc.Arbitrary<Model> = fc.record({
  interim: fc.array(fc.tuple(fc.constantFrom(102 as const, 103 as const), fc.array(header, { maxLength: 2 })), { maxLength: 2 }),
  status: fc.constantFrom(200, 201, 204, 304, 400, 404, 429, 500, 503, 529),
  reason,
  headers: fc.array(header, { maxLength: 5 }),
  framing,
  body: bodyText,
});

function chunkedBody(body: string, f: Extract<Framing, { kind: 'chunked' }>): string {
  let out = '';
  let at = 0;
  let i = 0;
  const size = (n: number) => {
    const hex = n.toString(16);
    return (f.zeros ? `00${hex}` : hex)[f.upper ? 'toUpperCase' : 'toLowerCase']();
  };
  while (at < body.length) {
    const n = Math.min(f.sizes[i % Math.max(1, f.sizes.length)] ?? body.length, body.length - at);
    out += `${size(n)}${f.ext[i % 6]}\r\n${body.slice(at, at + n)}\r\n`;
    at += n;
    i++;
  }
  return `${out}0${f.ext[5]}\r\n${f.trailers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
}

/** The bytes of a model response (well-formed). */
function render(m: Model): string {
  let out = '';
  for (const [status, fields] of m.interim) out += `HTTP/1.1 ${status} Info\r\n${fields.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
  const noBody = m.status === 204 || m.status === 304;
  out += `HTTP/1.1 ${m.status} ${m.reason}`.trimEnd() + '\r\n';
  for (const [n, v] of m.headers) out += `${n}: ${v}\r\n`;
  if (noBody) return `${out}\r\n`;
  if (m.framing.kind === 'length') return `${out}content-length: ${Buffer.byteLength(m.body, 'latin1')}\r\n\r\n${m.body}`;
  if (m.framing.kind === 'chunked') return `${out}transfer-encoding: chunked\r\n\r\n${chunkedBody(m.body, m.framing)}`;
  return `${out}\r\n${m.body}`;
}

/** Faults a broken or hostile upstream sends, applied to a well-formed response. */
const FAULTS: Array<[string, (bytes: string) => string]> = [
  ['obs-fold', (b) => b.replace(/\r\n([a-z][a-z0-9-]*: [^\r\n]*)\r\n/, '\r\n$1\r\n  folded on\r\n')],
  ['bare LF in the head', (b) => b.replace(/\r\n(?=[a-z])/, '\n')],
  ['bare CR in a value', (b) => b.replace(/\r\n([a-z][a-z0-9-]*: )/, '\r\n$1a\rb ')],
  ['NUL in a value', (b) => b.replace(/\r\n([a-z][a-z0-9-]*: )/, '\r\n$1a\u0000b ')],
  ['space before the colon', (b) => b.replace(/\r\n([a-z][a-z0-9-]*): /, '\r\n$1 : ')],
  ['both framings', (b) => b.replace(/transfer-encoding: chunked\r\n/, 'transfer-encoding: chunked\r\ncontent-length: 5\r\n')],
  ['differing lengths', (b) => b.replace(/content-length: (\d+)\r\n/, 'content-length: $1\r\ncontent-length: 9999\r\n')],
  ['same length twice', (b) => b.replace(/content-length: (\d+)\r\n/, 'content-length: $1\r\ncontent-length: $1\r\n')],
  ['length with a sign', (b) => b.replace(/content-length: (\d+)/, 'content-length: +$1')],
  ['bad chunk size', (b) => b.replace(/\r\n\r\n([0-9a-fA-F]+)/, '\r\n\r\n$1g')],
  ['whitespace before a chunk extension', (b) => b.replace(/\r\n\r\n([0-9a-fA-F]+)/, '\r\n\r\n$1 ;ext=1')],
  ['whitespace after a chunk size', (b) => b.replace(/\r\n\r\n([0-9a-fA-F]+)[^\r\n]*\r\n/, '\r\n\r\n$1 \r\n')],
  ['huge chunk size', (b) => b.replace(/\r\n\r\n([0-9a-fA-F]+)/, '\r\n\r\nfffffffffffffffff')],
  ['chunk without its CRLF', (b) => b.replace(/(\r\n\r\n[0-9a-fA-F]+[^\r\n]*\r\n[^\r\n]{1,40}?)\r\n/, '$1X\r\n')],
  ['chunked not last', (b) => b.replace(/transfer-encoding: chunked/, 'transfer-encoding: chunked, gzip')],
  ['oversized head', (b) => b.replace(/\r\n\r\n/, `\r\nx-big: ${'a'.repeat(70 * 1024)}\r\n\r\n`)],
  ['four-digit status', (b) => b.replace(/^((?:HTTP\/1\.1 1\d\d[^\n]*\n(?:[^\r\n]+\r\n)*\r\n)*)HTTP\/1\.1 (\d{3})/, '$1HTTP/1.1 $20')],
  ['two-digit status', (b) => b.replace(/^((?:HTTP\/1\.1 1\d\d[^\n]*\n(?:[^\r\n]+\r\n)*\r\n)*)HTTP\/1\.1 (\d{2})\d/, '$1HTTP/1.1 $2')],
  ['HTTP/1.2', (b) => b.replace(/HTTP\/1\.1 (?!1\d\d)/, 'HTTP/1.2 ')],
  ['control character in the reason', (b) => b.replace(/^(HTTP\/1\.1 [2-5]\d\d) ?[^\r]*/m, '$1 Bad\u0001Reason')],
  ['header without a name', (b) => b.replace(/\r\n\r\n/, '\r\n: nameless\r\n\r\n')],
];

const cutsFor = (length: number) =>
  fc.array(fc.integer({ min: 1, max: Math.max(1, length - 1) }), { maxLength: 6 }).map((c) => [...new Set(c)].sort((a, b) => a - b));

/**
 * Where the two differ on purpose. `null`: they must agree.
 */
function intendedDifference(label: string, own: Outcome, ref: Outcome): string | null {
  // A head that folds a line (RFC 9112 §5.2: a recipient MAY replace it with a space): the
  // built-in client joins it; llhttp as undici builds it refuses it. Both are allowed.
  if (label === 'obs-fold' && own.ok && !ref.ok) return 'obs-fold joined by the built-in client, refused by llhttp';
  // A reason phrase may hold HTAB, SP, visible and obs-text characters only (RFC 9112 §4): the
  // built-in client refuses a control character there; llhttp lets it through.
  if (label === 'control character in the reason' && !own.ok && ref.ok) return 'the built-in client is stricter on the reason phrase';
  return null;
}

describe('the built-in client and llhttp read the same bytes alike', () => {
  it('well-formed responses, cut anywhere: same status, fields and body', async () => {
    await fc.assert(
      fc.asyncProperty(
        model.chain((m) => {
          const bytes = Buffer.from(render(m), 'latin1');
          return cutsFor(bytes.length).map((cuts): Case => ({ bytes, cuts, label: 'well-formed' }));
        }),
        async (c) => {
          const { own, ref } = await both(c);
          expect(ref.ok).toBe(true);
          expect(own).toEqual(ref);
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);

  it('faulty responses: both refuse them, or both read them alike', async () => {
    const findings: string[] = [];
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(model, fc.constantFrom(...FAULTS)).chain(([m, [label, fault]]) => {
          const original = render(m);
          const faulty = fault(original);
          const bytes = Buffer.from(faulty, 'latin1');
          return cutsFor(bytes.length).map((cuts): Case => ({ bytes, cuts, label: faulty === original ? 'well-formed' : label }));
        }),
        async (c) => {
          const { own, ref } = await both(c);
          if (own.ok === ref.ok && (!own.ok || JSON.stringify(own) === JSON.stringify(ref))) return;
          if (intendedDifference(c.label, own, ref) !== null) return;
          findings.push(
            `${c.label}: built-in ${JSON.stringify(own).slice(0, 200)} vs llhttp ${JSON.stringify(ref).slice(0, 200)} on ${JSON.stringify(c.bytes.toString('latin1').slice(0, 300))}`,
          );
          expect.fail(findings.at(-1));
        },
      ),
      { numRuns: 400 },
    );
  }, 240_000);

  it('named cases, each on its own: both refuse, or both read alike', async () => {
    const CASES: Array<[string, string]> = [
      ['chunked not last: the body ends with the connection', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked, gzip\r\n\r\nraw bytes'],
      ['a chunk without its CRLF', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n'],
      ['a chunked HTTP/1.0 answer', 'HTTP/1.0 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n'],
      ['a length over the body (cut short)', 'HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc'],
      ['bytes after the body', 'HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\nabcdef'],
      ['trailers', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nx-t: 1\r\nx-u: 2\r\n\r\n'],
      ['a bare LF after the chunk data', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\n0\r\n\r\n'],
      ['a 101 switch', 'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n'],
      ['a tab in a value', 'HTTP/1.1 200 OK\r\nx-a: one\ttwo\r\ncontent-length: 0\r\n\r\n'],
      ['obs-text in a value', 'HTTP/1.1 200 OK\r\nx-a: caf\u00e9\r\ncontent-length: 0\r\n\r\n'],
      ['a status line without a reason or its space', 'HTTP/1.1 200\r\ncontent-length: 0\r\n\r\n'],
    ];
    const disagreements: string[] = [];
    for (const [label, text] of CASES) {
      const { own, ref } = await both({ bytes: Buffer.from(text, 'latin1'), cuts: [7, 20, 31], label });
      if (JSON.stringify(own) !== JSON.stringify(ref)) disagreements.push(`${label}: built-in ${JSON.stringify(own)} vs llhttp ${JSON.stringify(ref)}`);
    }
    expect(disagreements).toEqual([]);
  }, 60_000);

  it('an unasked-for 100 Continue: the built-in client skips it (RFC 9110 §15.2), llhttp as undici runs it refuses the answer', async () => {
    const bytes = Buffer.from('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok', 'latin1');
    const { own, ref } = await both({ bytes, cuts: [5, 30], label: '100' });
    expect(own).toEqual({ ok: true, status: 200, headers: ['content-length: 2'], body: 'ok' });
    expect(ref.ok).toBe(false);
  });
});
