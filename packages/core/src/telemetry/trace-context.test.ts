import { ROOT_CONTEXT, TraceFlags, propagation, trace, type Context, type SpanContext, type TextMapPropagator } from '@opentelemetry/api';
import { CompositePropagator, TraceState, W3CBaggagePropagator, W3CTraceContextPropagator, suppressTracing } from '@opentelemetry/core';
import { afterEach, describe, expect, it } from 'vitest';
import { globalInjection, injectTraceparent, injectionOf } from './trace-context.js';

const setter = { set: (carrier: Headers, key: string, value: string) => carrier.set(key, value) };

const contexts: SpanContext[] = [
  { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED },
  { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.NONE },
  {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    traceFlags: 3,
    traceState: new TraceState('congo=t61rcWkgMzE,rojo=00f067aa0ba902b7'),
  },
  // Invalid ids: the propagator writes nothing.
  { traceId: '00000000000000000000000000000000', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED },
  { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: 'not-hex', traceFlags: TraceFlags.SAMPLED },
];

/** What the propagator writes, as the gateway calls it (baggage dropped first). */
function viaPropagator(p: TextMapPropagator, parent: Context, sc: SpanContext): Array<[string, string]> {
  const h = new Headers();
  p.inject(propagation.deleteBaggage(trace.setSpanContext(parent, sc)), h, setter);
  return [...h.entries()];
}

function direct(parent: Context, sc: SpanContext): Array<[string, string]> {
  const h = new Headers();
  injectTraceparent(parent, sc, h);
  return [...h.entries()];
}

describe('trace context on upstream calls', () => {
  afterEach(() => propagation.disable());

  it('writes exactly what the W3C propagators write, for sampled, unsampled, tracestate, invalid and suppressed contexts', () => {
    const withBaggage = propagation.setBaggage(ROOT_CONTEXT, propagation.createBaggage({ tenant: { value: 'acme' } }));
    for (const p of [
      new W3CTraceContextPropagator(),
      new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
    ]) {
      for (const parent of [ROOT_CONTEXT, withBaggage, suppressTracing(ROOT_CONTEXT)]) {
        for (const sc of contexts) expect(direct(parent, sc)).toEqual(viaPropagator(p, parent, sc));
      }
    }
    // The cases above are not all empty.
    expect(direct(ROOT_CONTEXT, contexts[2]!)).toEqual([
      ['traceparent', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03'],
      ['tracestate', 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7'],
    ]);
  });

  it('takes the direct path only for the W3C Trace Context propagator, alone or with W3C Baggage', () => {
    expect(injectionOf(new W3CTraceContextPropagator())).toBe('traceparent');
    expect(injectionOf(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }))).toBe('traceparent');
    expect(injectionOf(new CompositePropagator({ propagators: [new W3CBaggagePropagator(), new W3CTraceContextPropagator()] }))).toBe('traceparent');
  });

  it('leaves any other propagator to write what it writes', () => {
    class Custom extends W3CTraceContextPropagator {
      override inject(context: Context, carrier: unknown, s: typeof setter): void {
        s.set(carrier as Headers, 'x-trace', trace.getSpanContext(context)?.traceId ?? '');
      }
    }
    const patched = new W3CTraceContextPropagator();
    patched.inject = () => {};
    const b3Like: TextMapPropagator = { inject: () => {}, extract: (c) => c, fields: () => ['b3'] };
    expect(injectionOf(new Custom())).toBe('generic');
    expect(injectionOf(patched)).toBe('generic');
    expect(injectionOf(b3Like)).toBe('generic');
    expect(injectionOf(new W3CBaggagePropagator())).toBe('generic');
    expect(injectionOf(new CompositePropagator({ propagators: [new W3CBaggagePropagator()] }))).toBe('generic');
    expect(injectionOf(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), b3Like] }))).toBe('generic');
    expect(injectionOf(new CompositePropagator())).toBe('generic');
    expect(injectionOf(propagation)).toBe('generic');
  });

  it('follows the global propagator as it is set and replaced', () => {
    expect(globalInjection()).toBe('generic');
    propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
    expect(globalInjection()).toBe('traceparent');
    propagation.disable();
    propagation.setGlobalPropagator({ inject: () => {}, extract: (c) => c, fields: () => ['b3'] });
    expect(globalInjection()).toBe('generic');
  });
});
