export { toNodeListener, handleNodeRequest, DEFAULT_MAX_REQUEST_BYTES } from './http/listener.js';
export type { GatewayLike, NodeListener, NodeListenerOptions, HandleNodeRequestOptions } from './http/listener.js';
export { toFetchRequest, toGatewayRequest } from './http/request.js';
export { writeFetchResponse, writeReply } from './http/response.js';
export { createNodeFetch, createNodeUpstream } from './http/upstream-fetch.js';
export type { NodeFetch, NodeFetchOptions, NodeUpstream } from './http/upstream-fetch.js';
export { gatewayHandles } from './http/routes.js';
export { createJsonLinesSink } from './sinks/json-lines.js';
export type { JsonLinesSink, JsonLinesSinkOptions, JsonLinesTarget } from './sinks/json-lines.js';
// `tollgate serve` as a library: the service config schema, its loader and the server.
export { ServiceConfigSchema } from './cli/config.js';
export type { ServiceConfig, ServiceConfigInput } from './cli/config.js';
export { loadService, formatViolations } from './cli/load.js';
export type { LoadedService, LoadResult, Violation } from './cli/load.js';
export { startService } from './cli/service.js';
export type { RunningService, StartServiceOptions, ReloadResult } from './cli/service.js';
export { createKeyEntry } from './cli/key.js';
export type { CreatedKey, KeyPrincipal } from './cli/key.js';
