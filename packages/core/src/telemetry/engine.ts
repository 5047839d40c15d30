import { createTelemetry } from './instruments.js';
import type { TelemetryEngine } from './options.js';
import { RequestObserver } from './request.js';
import { instrumentStore } from './store.js';

/**
 * The gateway's OpenTelemetry instrumentation (`telemetry.engine`): GenAI metrics, spans and
 * trace context through `@opentelemetry/api`, to the providers in the options or the global
 * ones. Null (nothing recorded, nothing called per request) when every provider is a no-op.
 */
export const openTelemetry: TelemetryEngine = (options) => {
  const tel = createTelemetry(options);
  if (tel === null) return null;
  const m = tel.metrics;
  return {
    store: (store) => (m === null ? store : instrumentStore(store, m, (work) => tel.deferred.add(work))),
    request: (headers, brandOf) => new RequestObserver(tel, headers, brandOf),
    settleFailed: () => void m?.settleFailures.add(1),
    pending: () => (tel.deferred.pending === 0 ? null : tel.deferred.idle()),
    flush: () => tel.deferred.drain(),
    observe: (sources) => tel.observe(sources),
    shutdown: () => tel.shutdown(),
  };
};
