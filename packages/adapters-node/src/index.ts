export { toNodeListener, handleNodeRequest, DEFAULT_MAX_REQUEST_BYTES } from './http/listener.js';
export type { NodeListener, NodeListenerOptions, HandleNodeRequestOptions } from './http/listener.js';
export { toFetchRequest } from './http/request.js';
export { writeFetchResponse } from './http/response.js';
export { gatewayHandles } from './http/routes.js';
