import type { Request as IRRequest } from '@tollgate/codecs/base';
import type { Principal } from '@tollgate/policy';

export interface FilterContext {
  principal: Principal;
  /** Canonical model id. */
  model: string;
  requestId: string;
}

/**
 * A request filter (DLP, policy prompt, cache shaping). It may return a changed request, or
 * throw a GatewayError to refuse it. A filter that throws anything else refuses the request
 * too: a required filter that cannot complete means the request is not sent.
 */
export interface RequestFilter {
  name: string;
  apply(request: IRRequest, context: FilterContext): IRRequest | Promise<IRRequest>;
}
