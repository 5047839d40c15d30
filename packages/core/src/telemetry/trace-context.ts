/**
 * Writing an upstream call's `traceparent` without the propagator's generic path, when the
 * propagator is known to write exactly that: `@opentelemetry/core`'s W3C Trace Context
 * propagator, alone or in its composite with the W3C Baggage one (which writes nothing here: the
 * gateway drops baggage before injecting). The generic path builds two contexts and goes through
 * the propagator's checks and setter for each request; this one reads the CLIENT span's context
 * and writes the header the same propagator would write.
 *
 * Anything else (another propagator, a subclass, a patched instance, a minified build whose
 * class names are gone) is not recognised and goes through the propagator as configured.
 * `@tollgate/core` depends on `@opentelemetry/api` only, so the classes are recognised by name
 * and shape, never imported.
 */
import { createContextKey, isSpanContextValid, propagation, type Context, type SpanContext, type TextMapPropagator } from '@opentelemetry/api';

/** How trace context is written on an upstream call. */
export type Injection = 'traceparent' | 'generic';

/** `@opentelemetry/core`'s key for suppressed tracing (`createContextKey` makes `Symbol.for` keys). */
const SUPPRESS_TRACING = createContextKey('OpenTelemetry SDK Context Key SUPPRESS_TRACING');

/** An instance of the class named `name`, with its methods as the class defines them (no own override). */
function plainInstanceOf(p: unknown, name: string): boolean {
  if (typeof p !== 'object' || p === null) return false;
  const proto = Object.getPrototypeOf(p) as { constructor?: { name?: string } } | null;
  if (proto?.constructor?.name !== name || Object.getPrototypeOf(proto) !== Object.prototype) return false;
  return !Object.prototype.hasOwnProperty.call(p, 'inject') && !Object.prototype.hasOwnProperty.call(p, 'fields');
}

function isTraceContext(p: unknown): boolean {
  if (!plainInstanceOf(p, 'W3CTraceContextPropagator')) return false;
  const fields = (p as TextMapPropagator).fields();
  return fields.length === 2 && fields[0] === 'traceparent' && fields[1] === 'tracestate';
}

function isBaggage(p: unknown): boolean {
  if (!plainInstanceOf(p, 'W3CBaggagePropagator')) return false;
  const fields = (p as TextMapPropagator).fields();
  return fields.length === 1 && fields[0] === 'baggage';
}

/** How `propagator` (a configured one, not the global API) writes trace context. */
export function injectionOf(propagator: TextMapPropagator): Injection {
  if (isTraceContext(propagator)) return 'traceparent';
  if (!plainInstanceOf(propagator, 'CompositePropagator')) return 'generic';
  const members = (propagator as unknown as { _propagators?: unknown })._propagators;
  if (!Array.isArray(members) || members.length === 0) return 'generic';
  let traceContext = false;
  for (const m of members) {
    if (isTraceContext(m)) traceContext = true;
    else if (!isBaggage(m)) return 'generic';
  }
  return traceContext ? 'traceparent' : 'generic';
}

/**
 * The global propagator behind the `propagation` API (it can be set after the gateway is made,
 * so it is looked up per request), recognised once per instance.
 */
let lastGlobal: unknown = undefined;
let lastGlobalInjection: Injection = 'generic';
export function globalInjection(): Injection {
  const get = (propagation as unknown as { _getGlobalPropagator?: () => unknown })._getGlobalPropagator;
  if (typeof get !== 'function') return 'generic';
  let current: unknown;
  try {
    current = get.call(propagation);
  } catch {
    return 'generic';
  }
  if (current !== lastGlobal) {
    lastGlobalInjection = typeof current === 'object' && current !== null ? injectionOf(current as TextMapPropagator) : 'generic';
    lastGlobal = current;
  }
  return lastGlobalInjection;
}

/**
 * What the W3C Trace Context propagator writes for `spanContext` (the CLIENT span's, a child of
 * `parent`): `traceparent`, and `tracestate` when there is one.
 */
export function injectTraceparent(parent: Context, spanContext: SpanContext, headers: Headers): void {
  if (parent.getValue(SUPPRESS_TRACING) === true || !isSpanContextValid(spanContext)) return;
  const flags = spanContext.traceFlags;
  const f = flags === 1 ? '01' : flags === 0 || !flags ? '00' : `0${Number(flags).toString(16)}`;
  headers.set('traceparent', `00-${spanContext.traceId}-${spanContext.spanId}-${f}`);
  if (spanContext.traceState) headers.set('tracestate', spanContext.traceState.serialize());
}
