// What the fake's routes answer with: a `Response` that keeps its JSON text and makes its body stream only when asked
// (see lazy-text-body.ts). The SDK's clients read a reply once, with `text()`; a server writing it out, `body`,
// `arrayBuffer()` or a `clone()` after a read get the stream-backed `Response`.
import { copyUnread, keepText, lazyTextBody, makeReal } from "./lazy-text-body.js";

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ "content-type": "application/json" });

// The body members are accessors and methods on `Response.prototype`; undici's typings declare them as properties,
// which a subclass may not override: the subclass extends `Response` typed without them.
type ReplyBase = Omit<
  Response,
  "body" | "bodyUsed" | "text" | "json" | "arrayBuffer" | "blob" | "formData" | "bytes" | "clone"
>;
const ResponseBase = Response as unknown as new (body: null, init: ResponseInit) => ReplyBase;

/** A JSON `Response` holding its text; a real `Response` (instanceof, status, headers) with a lazily made body. */
class JsonReply extends lazyTextBody<Response, typeof ResponseBase>(ResponseBase) {
  constructor(text: string, init: ResponseInit) {
    super(null, init);
    this[keepText](text);
  }

  [makeReal](text: string): Response {
    return new Response(text, this.#init());
  }

  // Unread, a copy is one more reply holding the same text: no stream is made for it.
  override [copyUnread](text: string): Response {
    return new JsonReply(text, this.#init()) as unknown as Response;
  }

  #init(): ResponseInit {
    return { status: this.status, statusText: this.statusText, headers: this.headers };
  }
}

/**
 * The fake's JSON answer: `body` as JSON with `status` and `headers` (content type `application/json`), in place of
 * Hono's `c.json()`.
 */
export function jsonReply(body: unknown, status = 200, headers?: Record<string, string>): Response {
  const init = { status, headers: headers ? { "content-type": "application/json", ...headers } : JSON_HEADERS };
  return new JsonReply(JSON.stringify(body), init) as unknown as Response;
}
