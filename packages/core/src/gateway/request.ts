/**
 * What the gateway reads of a request. A Fetch `Request` is one; a server adapter may hand the
 * gateway a plain object with these fields instead, which spares it constructing a `Request`
 * (and a second stream around the body) for every call — on Node that is a large share of the
 * per-request cost. The body may also be bytes some earlier middleware already read.
 */
export interface GatewayRequest {
  readonly method: string;
  /** The absolute URL (origin + path + query). */
  readonly url: string;
  readonly headers: Headers;
  /** Aborted when the client goes away: the upstream call is cancelled with it. */
  readonly signal: AbortSignal;
  readonly body: ReadableStream<Uint8Array> | Uint8Array | null;
}
