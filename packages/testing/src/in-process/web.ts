// What the in-process helpers share: the `fetch` they return, and the way an app's answer becomes a Web `Response`.

/** A `fetch` into one app, for the fake's `webhooks.fetch` (or `provider.webhooks.setFetch`) or a test's own calls. */
export type InProcessFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Options of the helpers whose app reads a Node request (Express, Fastify, NestJS). */
export interface InProcessOptions {
  /**
   * The peer address the app sees (`req.socket.remoteAddress`, Express's `req.ip`, Fastify's `request.ip`), e.g. an
   * address of the provider's range for an app behind a source-IP allowlist. Default `127.0.0.1`.
   */
  remoteAddress?: string;
}

/** The `Request` a fetch-style call describes, as `fetch` builds it. */
export function requestOf(input: string | URL | Request, init: RequestInit | undefined): Request {
  return input instanceof Request && init === undefined ? input : new Request(input, init);
}

/** An app's answer as the helpers collect it. */
export interface CollectedAnswer {
  status: number;
  statusText?: string | undefined;
  /** Header names and values in order, a repeated header once per value (`set-cookie`). */
  headers: Iterable<readonly [string, string]>;
  body: Uint8Array;
}

// Statuses whose responses have no body (a Web Response refuses one), and headers of the connection, not the answer.
const NULL_BODY_STATUSES = new Set([204, 205, 304]);
const CONNECTION_HEADERS = new Set(["connection", "keep-alive", "transfer-encoding"]);

/** The Web `Response` of an answer to a `method` request: status, every header, and the body's bytes. */
export function webResponseOf(answer: CollectedAnswer, method: string): Response {
  const headers = new Headers();
  for (const [name, value] of answer.headers) {
    if (!CONNECTION_HEADERS.has(name.toLowerCase())) headers.append(name, value);
  }
  const empty = method === "HEAD" || NULL_BODY_STATUSES.has(answer.status);
  return new Response(empty ? null : new Uint8Array(answer.body), {
    status: answer.status,
    ...(answer.statusText ? { statusText: answer.statusText } : {}),
    headers,
  });
}
