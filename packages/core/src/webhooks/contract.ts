// The framework-neutral request/response pair every adapter translates to and from. Adapters (Express, Hono,
// NestJS, user-written ones) depend on exactly this shape, so change it only with all adapters in view.

/** Header map accepted by {@link WebhookHttpRequest}: a Web `Headers`, or Node's `IncomingHttpHeaders` shape. */
export type WebhookHeadersInput = Headers | Record<string, string | string[] | undefined>;

/** One incoming webhook delivery, as the adapter read it from its framework. */
export interface WebhookHttpRequest {
  /** HTTP method as received, e.g. `"POST"`. */
  method: string;
  /** Path and query as received (`/webhooks/qris?token=...`), or an absolute URL. Verifiers read URL tokens here. */
  url: string;
  headers: WebhookHeadersInput;
  /**
   * The exact bytes of the body. Anything else (a parsed object, `undefined`) is answered with a diagnostic that
   * names the mistake (e.g. a JSON body parser mounted before the webhook route) and never reaches a handler.
   */
  rawBody: Uint8Array | string | unknown;
  /** Peer address of the TCP connection, for the IP allowlist. */
  remoteAddress?: string | undefined;
}

/** What the adapter writes back: status, headers and a JSON text body. */
export interface WebhookHttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}
