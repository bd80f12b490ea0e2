// What the fake's routes answer with. On Node 20 a `Response` with a body builds a ReadableStream when it is made,
// and `text()` reads the string back through that stream: for a reply of a few hundred bytes the two cost about as
// much as the route that made it (bench/fake-lifecycle). The SDK's clients read a reply once, with `text()`; this
// `Response` keeps the string and answers `text()` and `json()` from it, and builds the stream-backed `Response` only
// when something asks for the body any other way (`body`, `arrayBuffer()`, `clone()` after a read, a server writing
// it out).

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ "content-type": "application/json" });

// The body members are accessors and methods on `Response.prototype`; undici's typings declare them as properties,
// which a subclass may not override: the subclass extends `Response` typed without them.
type ReplyBase = Omit<Response, "body" | "bodyUsed" | "text" | "json" | "arrayBuffer" | "blob" | "formData" | "clone">;
const ResponseBase = Response as unknown as new (body: null, init: ResponseInit) => ReplyBase;

/** A JSON `Response` holding its text; a real `Response` (instanceof, status, headers) with a lazily made body. */
class JsonReply extends ResponseBase {
  readonly #text: string;
  #real: Response | undefined;
  #used = false;

  constructor(text: string, init: ResponseInit) {
    super(null, init);
    this.#text = text;
  }

  // The same body, stream and all; consumed already when this reply's text was read, as a read stream would be.
  #materialise(): Response {
    if (this.#real === undefined) {
      this.#real = new Response(this.#text, {
        status: this.status,
        statusText: this.statusText,
        headers: this.headers,
      });
      if (this.#used) this.#real.arrayBuffer().catch(() => {});
    }
    return this.#real;
  }

  #take(): string {
    if (this.bodyUsed) throw new TypeError("Body is unusable: Body has already been read");
    this.#used = true;
    return this.#text;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.#materialise().body as ReadableStream<Uint8Array> | null;
  }

  get bodyUsed(): boolean {
    return this.#used || (this.#real?.bodyUsed ?? false);
  }

  async text(): Promise<string> {
    if (this.#real !== undefined) return this.#real.text();
    return this.#take();
  }

  async json(): Promise<unknown> {
    if (this.#real !== undefined) return this.#real.json();
    return JSON.parse(this.#take());
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.#materialise().arrayBuffer();
  }

  blob(): Promise<Blob> {
    return this.#materialise().blob();
  }

  formData(): Promise<FormData> {
    return this.#materialise().formData();
  }

  // `bytes()` is in Node 22's Response and not in Node 20's: the inherited one would read the empty body.
  bytes(): Promise<Uint8Array> {
    return (this.#materialise() as Response & { bytes(): Promise<Uint8Array> }).bytes();
  }

  clone(): Response {
    if (this.#real !== undefined) return this.#real.clone();
    if (this.#used) throw new TypeError("Response.clone: Body has already been consumed.");
    return new JsonReply(this.#text, {
      status: this.status,
      statusText: this.statusText,
      headers: this.headers,
    }) as unknown as Response;
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
