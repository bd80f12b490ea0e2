// A Web `Request` as the options of an injected request (light-my-request's, which Fastify's `inject` also takes),
// and the injected answer back as a Web `Response`: what lets the fake deliver a webhook straight into a Node app's
// request handler, no port in between, with the exact bytes it signed.

/** A `fetch` into one app, for the fake's `webhooks.fetch` (or `provider.webhooks.setFetch`) or a test's own calls. */
export type InProcessFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Options of the in-process helpers that inject into a Node request handler. */
export interface InjectTargetOptions {
  /**
   * The peer address the app sees (`req.socket.remoteAddress`, `req.ip`), e.g. an address of the provider's range
   * for an app behind a source-IP allowlist. Default `127.0.0.1`.
   */
  remoteAddress?: string;
}

/** The request options an injector takes (light-my-request's and Fastify's `inject`). */
export interface InjectRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: Record<string, string>;
  /** The body's exact bytes (a Buffer: a plain object would be sent as JSON). */
  payload?: Buffer;
  remoteAddress: string;
}

/** The slice of an injected answer the helpers read (light-my-request's `Response`, which Fastify's inject returns). */
export interface InjectResponseLike {
  statusCode: number;
  statusMessage?: string;
  headers: Record<string, string | string[] | number | undefined>;
  rawPayload: Uint8Array;
}

/** The injector's options for `request`: path, headers with the URL's `Host`, and the body's bytes. */
export async function injectRequestOf(request: Request, options: InjectTargetOptions = {}): Promise<InjectRequest> {
  const url = new URL(request.url);
  const headers: Record<string, string> = { host: url.host };
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
  return {
    method: request.method,
    url: `${url.pathname}${url.search}`,
    headers,
    ...(body === undefined ? {} : { payload: body }),
    remoteAddress: options.remoteAddress ?? "127.0.0.1",
  };
}

// Statuses whose responses have no body (a Web Response refuses one), and headers of the connection, not the answer.
const NULL_BODY_STATUSES = new Set([204, 205, 304]);
const CONNECTION_HEADERS = new Set(["connection", "keep-alive", "transfer-encoding"]);

/** The Web `Response` of an injected answer: status, every header (repeated ones appended) and the body's bytes. */
export function webResponseOf(answer: InjectResponseLike, method: string): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined || CONNECTION_HEADERS.has(name.toLowerCase())) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, String(value));
  }
  const empty = method === "HEAD" || NULL_BODY_STATUSES.has(answer.statusCode);
  return new Response(empty ? null : new Uint8Array(answer.rawPayload), {
    status: answer.statusCode,
    ...(answer.statusMessage ? { statusText: answer.statusMessage } : {}),
    headers,
  });
}

/** The `Request` a fetch-style call describes, as `fetch` builds it. */
export function requestOf(input: string | URL | Request, init: RequestInit | undefined): Request {
  return input instanceof Request && init === undefined ? input : new Request(input, init);
}
