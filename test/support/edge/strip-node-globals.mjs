// Runs an ESM bundle in Node as if Node's globals did not exist, under Workers' global-scope
// rules while the bundle's module scope is evaluated (setTimeout, setInterval, fetch and random
// values throw). Then lifts those rules and calls the bundle's `run()`.
//   node strip-node-globals.mjs <bundle.mjs> '<json put in globalThis.TOLLGATE_SANDBOX>'
// Prints one JSON line: { ok, result | error, touched }.
//
// Node's own Web APIs (undici behind Request, Response, fetch) use `Buffer` and `global`
// internally, so the globals cannot simply be deleted: each becomes a getter that answers
// `undefined` when read from the bundle's own code, and the real value to Node's internals.
// A bundle that uses one unguarded then fails (`process.env` → TypeError), exactly as on a
// runtime without it; a guarded probe (`globalThis.process?.env`) sees nothing.
import { pathToFileURL } from 'node:url';

const realProcess = globalThis.process;
const print = (value) => realProcess.stdout.write(`${JSON.stringify(value)}\n`);
const [bundle, config] = realProcess.argv.slice(2);
const bundleUrl = pathToFileURL(bundle).href;

const NODE_GLOBALS = ['process', 'Buffer', 'global', 'setImmediate', 'clearImmediate'];
const touched = new Set();
for (const name of NODE_GLOBALS) {
  const real = globalThis[name];
  Object.defineProperty(globalThis, name, {
    configurable: true,
    enumerable: false,
    get() {
      const caller = (new Error().stack ?? '').split('\n')[2] ?? '';
      if (caller.includes(bundleUrl)) {
        touched.add(name);
        return undefined;
      }
      return real;
    },
  });
}

const web = {
  setTimeout: globalThis.setTimeout,
  setInterval: globalThis.setInterval,
  fetch: globalThis.fetch,
  getRandomValues: crypto.getRandomValues,
  randomUUID: crypto.randomUUID,
};
const refuse = (what) =>
  function disallowed() {
    throw new Error(`Disallowed operation called within global scope: ${what}`);
  };
globalThis.setTimeout = refuse('setTimeout');
globalThis.setInterval = refuse('setInterval');
globalThis.fetch = refuse('fetch');
crypto.getRandomValues = refuse('crypto.getRandomValues');
crypto.randomUUID = refuse('crypto.randomUUID');
globalThis.TOLLGATE_SANDBOX = JSON.parse(config ?? '{}');

try {
  const mod = await import(bundleUrl);
  globalThis.setTimeout = web.setTimeout;
  globalThis.setInterval = web.setInterval;
  globalThis.fetch = web.fetch;
  crypto.getRandomValues = web.getRandomValues;
  crypto.randomUUID = web.randomUUID;
  const result = await mod.run();
  print({ ok: true, touched: [...touched], result });
} catch (error) {
  print({ ok: false, touched: [...touched], error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}
realProcess.exit(0);
