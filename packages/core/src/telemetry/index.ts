/**
 * `@tollgate/core/telemetry`: OpenTelemetry metrics and traces for `createGateway` of
 * `@tollgate/core/minimal` (`telemetry: { engine: openTelemetry }`); `@tollgate/core` passes it
 * by default.
 */
export { openTelemetry } from './engine.js';
export type { GatewayTelemetry, TelemetryEngine, TelemetryOption, TelemetryOptions, TelemetrySources } from './options.js';
