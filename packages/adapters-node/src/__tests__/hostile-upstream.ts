/**
 * A scripted hostile Anthropic Messages upstream on raw sockets (plain and TLS with a private
 * CA), for the transport's time and memory bounds. The first path segment names the scenario:
 * `/<scenario>/v1/messages`.
 *
 * - `ok`: a well-formed answer (streamed when the request asks), then `connection: close`;
 * - `header-drip`: a status line, then one byte of a header every `dripMs`, never ending the head;
 * - `endless-100`: `100 Continue` heads every `dripMs`, never a final one;
 * - `endless-103`: `103 Early Hints` heads every `dripMs`, never a final one;
 * - `trailers-forever`: a whole chunked stream, then trailer fields every `dripMs`, never the end;
 * - `one-byte-chunks`: a whole chunked answer, each byte of it its own chunk;
 * - `stops-midway`: the head and part of the body, then silence with the connection open;
 * - `reset-after-headers`: the head, then a TCP reset;
 * - `flood`: a stream of large text deltas, as fast as the connection takes them, never ending.
 *
 * It counts the connections it has open, so a test can see the gateway let go of them.
 */
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';

const TLS_DIR = new URL('./tls/', import.meta.url);
/** The private CA (a self-signed certificate for localhost and 127.0.0.1) the TLS upstream serves. */
export const PRIVATE_CA = readFileSync(new URL('cert.pem', TLS_DIR), 'utf8');
const KEY = readFileSync(new URL('key.pem', TLS_DIR), 'utf8');

const sse = (event: string, data: Record<string, unknown>) => `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;

/** The events of a short streamed answer: "Hello world", 12 input and 5 output tokens. */
export const STREAM_EVENTS = [
  sse('message_start', {
    message: {
      id: 'msg_h',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [],
      stop_reason: null,
      usage: { input_tokens: 12, output_tokens: 1 },
    },
  }),
  sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hello' } }),
  sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: ' world' } }),
  sse('content_block_stop', { index: 0 }),
  sse('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } }),
  sse('message_stop', {}),
];

export const WHOLE_ANSWER = JSON.stringify({
  id: 'msg_h',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [{ type: 'text', text: 'Hello world' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 12, output_tokens: 5 },
});

export interface HostileUpstream {
  /** `http://127.0.0.1:<port>` and `https://127.0.0.1:<port>` (same scenarios). */
  url: string;
  tlsUrl: string;
  /** Connections open now (plain and TLS). */
  open(): number;
  /** Requests seen per scenario. */
  hits: Record<string, number>;
  close(): Promise<void>;
}

function chunked(text: string): string {
  return `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
}

/** Act out a scenario on a connection whose request (head and body) has been read. */
function act(socket: Socket, scenario: string, stream: boolean, dripMs: number): void {
  const every = (write: () => void) => {
    const timer = setInterval(() => {
      if (socket.destroyed || !socket.writable) return clearInterval(timer);
      write();
    }, dripMs);
    socket.once('close', () => clearInterval(timer));
  };
  const streamHead = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n';
  switch (scenario) {
    case 'ok': {
      if (stream) socket.end(`${streamHead}connection: close\r\n\r\n${STREAM_EVENTS.map(chunked).join('')}0\r\n\r\n`);
      else
        socket.end(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(WHOLE_ANSWER)}\r\nconnection: close\r\n\r\n${WHOLE_ANSWER}`,
        );
      return;
    }
    case 'header-drip': {
      socket.write('HTTP/1.1 200 OK\r\n');
      const header = `x-drip: ${'a'.repeat(10_000)}`;
      let at = 0;
      every(() => socket.write(header[at++ % header.length]!));
      return;
    }
    case 'endless-100':
      every(() => socket.write('HTTP/1.1 100 Continue\r\n\r\n'));
      return;
    case 'endless-103':
      every(() => socket.write('HTTP/1.1 103 Early Hints\r\nlink: </style.css>; rel=preload\r\n\r\n'));
      return;
    case 'trailers-forever': {
      socket.write(`${streamHead}trailer: x-t\r\n\r\n${STREAM_EVENTS.map(chunked).join('')}0\r\n`);
      let n = 0;
      every(() => socket.write(`x-t${n++}: ${'v'.repeat(20)}\r\n`));
      return;
    }
    case 'one-byte-chunks': {
      const body = stream ? STREAM_EVENTS.join('') : WHOLE_ANSWER;
      const head = stream ? streamHead : 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n';
      let out = `${head}connection: close\r\n\r\n`;
      for (const byte of Buffer.from(body)) out += `1\r\n${String.fromCharCode(byte)}\r\n`;
      socket.end(Buffer.from(`${out}0\r\n\r\n`, 'latin1'));
      return;
    }
    case 'stops-midway': {
      if (stream) socket.write(`${streamHead}\r\n${STREAM_EVENTS.slice(0, 3).map(chunked).join('')}`);
      else
        socket.write(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(WHOLE_ANSWER)}\r\n\r\n${WHOLE_ANSWER.slice(0, 40)}`,
        );
      return;
    }
    case 'reset-after-headers': {
      socket.write(
        stream ? `${streamHead}\r\n` : `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(WHOLE_ANSWER)}\r\n\r\n`,
        () => {
          setTimeout(() => socket.resetAndDestroy(), 20);
        },
      );
      return;
    }
    case 'flood': {
      socket.write(`${streamHead}\r\n${STREAM_EVENTS.slice(0, 2).map(chunked).join('')}`);
      const delta = chunked(sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'x'.repeat(16 * 1024) } }));
      const pump = () => {
        while (!socket.destroyed && socket.write(delta));
      };
      socket.on('drain', pump);
      pump();
      return;
    }
    default:
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
  }
}

export async function startHostileUpstream(options: { dripMs?: number } = {}): Promise<HostileUpstream> {
  const dripMs = options.dripMs ?? 25;
  const hits: Record<string, number> = {};
  const sockets = new Set<Socket>();
  const onConnection = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buffered = Buffer.alloc(0);
    const onData = (data: Buffer) => {
      buffered = Buffer.concat([buffered, data]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end === -1) return;
      const head = buffered.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      socket.off('data', onData);
      const body = buffered.subarray(end + 4, end + 4 + length).toString('utf8');
      const scenario = /^\w+ \/([^/ ]+)\//.exec(head)?.[1] ?? '';
      hits[scenario] = (hits[scenario] ?? 0) + 1;
      act(socket, scenario, /"stream"\s*:\s*true/.test(body), dripMs);
    };
    socket.on('data', onData);
  };
  const plain: NetServer = createNetServer(onConnection);
  const tls: TlsServer = createTlsServer({ key: KEY, cert: PRIVATE_CA }, onConnection);
  tls.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(plain.address() as AddressInfo).port}`,
    tlsUrl: `https://127.0.0.1:${(tls.address() as AddressInfo).port}`,
    open: () => sockets.size,
    hits,
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all([new Promise<void>((r) => plain.close(() => r())), new Promise<void>((r) => tls.close(() => r()))]);
    },
  };
}
