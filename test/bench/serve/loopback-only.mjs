/**
 * Preloaded (`node --import`) into every process the serve benchmark starts: servers that
 * listen without a host are bound to 127.0.0.1, and any outbound TCP connection to a host that
 * is not loopback is refused and reported on stderr (`loopback-only: refused …`), so no peer
 * can reach the internet during the benchmark, whatever its defaults.
 */
import net from 'node:net';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '::ffff:127.0.0.1']);

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function patchedListen(...args) {
  if (typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\d+$/.test(args[0]))) {
    if (args[1] === undefined || typeof args[1] === 'function' || typeof args[1] === 'number') args.splice(1, args[1] === undefined ? 1 : 0, '127.0.0.1');
  } else if (args[0] !== null && typeof args[0] === 'object' && args[0].path === undefined && args[0].host === undefined) {
    args[0] = { ...args[0], host: '127.0.0.1' };
  }
  return listen.apply(this, args);
};

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function patchedConnect(...args) {
  const first = args[0];
  let host;
  if (Array.isArray(first)) host = first[0]?.host;
  else if (first !== null && typeof first === 'object') host = first.path === undefined ? (first.host ?? 'localhost') : undefined;
  else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) host = typeof args[1] === 'string' ? args[1] : 'localhost';
  if (host !== undefined && !LOOPBACK.has(String(host).replace(/^\[|\]$/g, ''))) {
    process.stderr.write(`loopback-only: refused a connection to ${host}\n`);
    const error = Object.assign(new Error(`loopback-only: connections to ${host} are refused during the benchmark`), { code: 'ECONNREFUSED' });
    process.nextTick(() => this.destroy(error));
    return this;
  }
  return connect.apply(this, args);
};

// TOLLGATE_BENCH_COUNT_WRITES_TO=<port>: count socket writes to that port (one per round trip
// to e.g. Redis, pipelines included once) and print `bench-writes <port> <n>` on exit.
const countPort = Number(process.env.TOLLGATE_BENCH_COUNT_WRITES_TO ?? '');
if (Number.isInteger(countPort) && countPort > 0) {
  let writes = 0;
  const write = net.Socket.prototype.write;
  net.Socket.prototype.write = function countingWrite(...args) {
    if (this.remotePort === countPort) writes++;
    return write.apply(this, args);
  };
  process.once('exit', () => process.stderr.write(`bench-writes ${countPort} ${writes}\n`));
}
