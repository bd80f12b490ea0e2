// What `provider.fetch` hands the app for the common call: a URL and a string (or no) body, as every SDK client
// sends. On Node 20 a Web `Request` with a body costs about as much as the route it carries (a body stream, an
// AbortSignal of its own, then reading the stream back), so this stand-in keeps the string and answers `text()` and
// `json()` from it; anything else (forms, bytes, `body`, `clone()`) builds the real `Request` on first use (see
// lazy-text-body.ts).
import { keepText, lazyTextBody, makeReal } from "./lazy-text-body.js";

const NEVER_ABORTED = new AbortController().signal;

/** The parts of `Request` the fake's routes and Hono read, backed by the caller's URL and init. */
class InProcessRequest extends lazyTextBody<Request, typeof Object>(Object) {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  readonly signal: AbortSignal;
  readonly #init: RequestInit;

  constructor(url: string, init: RequestInit, body: string | undefined) {
    super();
    this.url = url;
    this.method = (init.method ?? "GET").toUpperCase();
    // The SDK's clients pass a Headers they do not touch again: read it as it is rather than copy it.
    let headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
    if (body !== undefined && !headers.has("content-type")) {
      if (headers === init.headers) headers = new Headers(headers);
      headers.set("content-type", "text/plain;charset=UTF-8");
    }
    this.headers = headers;
    this.signal = init.signal ?? NEVER_ABORTED;
    this.#init = init;
    if (body !== undefined) this[keepText](body);
  }

  // Made from the caller's init, whose body is the same string (or none: a GET's body stays null).
  [makeReal](): Request {
    return new Request(this.url, { ...this.#init, headers: this.headers });
  }
}

// A client calls the same few URLs test after test, fake after fake: the last one's normal form is kept.
let lastUrl: { input: string | URL; href: string } | undefined;

/** The URL as a `Request` would hold it: parsed, serialised, without its fragment. */
function normalisedUrl(input: string | URL): string {
  if (typeof input === "string" && lastUrl?.input === input) return lastUrl.href;
  const parsed = new URL(input);
  parsed.hash = "";
  if (typeof input === "string") lastUrl = { input, href: parsed.href };
  return parsed.href;
}

/**
 * A `Request` for the app: the stand-in above when `input` is a URL and the body a string or absent, a real
 * `Request` otherwise.
 */
export function inProcessRequest(input: string | URL | Request, init: RequestInit = {}): Request {
  const body = init.body;
  if (input instanceof Request || (body !== undefined && body !== null && typeof body !== "string")) {
    return new Request(input, init);
  }
  const url = normalisedUrl(input);
  const method = (init.method ?? "GET").toUpperCase();
  if (body && (method === "GET" || method === "HEAD")) return new Request(url, init); // throws like fetch does
  return new InProcessRequest(url, init, body ?? undefined) as unknown as Request;
}
