// A body kept as its text and made into a stream only when asked. On Node 20 a `Request` or `Response` with a body
// builds a ReadableStream when it is made, and `text()` reads the string back through that stream: for the few hundred
// bytes the SDK's clients and the fake exchange, the two cost about as much as the route itself (bench/fake-lifecycle).
// The fake's answers (json-reply.ts) and the requests it hands its app (in-process-request.ts) both keep the string,
// answer `text()` and `json()` from it, and send every other way of reading (`body`, `arrayBuffer()`, `blob()`,
// `formData()`, `bytes()`, `clone()` after a read) to the real `Request` or `Response`, made once on first use.

// A mixin's base class must be typed as a constructor taking any[] (TypeScript's rule for mixins).
// biome-ignore lint/suspicious/noExplicitAny: see above
type Constructor = abstract new (...args: any[]) => object;

// What a holder of such a body implements or calls. Symbols rather than names: the holder passes for a `Request` or a
// `Response`, so it shows no member they do not have (and TypeScript lets an exported mixin have no protected ones).
/** The holder hands its text over in its constructor, `this[keepText](text)`, unless it has no body. */
export const keepText: unique symbol = Symbol("keepText");
/** The holder makes the real object holding the same body, from this text. */
export const makeReal: unique symbol = Symbol("makeReal");
/** The holder may copy itself while nothing has read or made its body (by default a real object is made). */
export const copyUnread: unique symbol = Symbol("copyUnread");

/**
 * Adds the body members of `Real` (a `Request` or a `Response`) to `Base`, backed by a text the subclass hands over
 * with `[keepText]` in its constructor. The subclass says how to make the real object (`[makeReal]`) and may say how
 * to copy itself while unread (`[copyUnread]`).
 */
export function lazyTextBody<Real extends Request | Response, Base extends Constructor>(base: Base) {
  abstract class LazyTextBody extends base {
    #text: string | undefined; // undefined: no body at all (a GET), which a read never uses up
    #real: Real | undefined;
    #used = false;

    abstract [makeReal](text: string): Real;

    [copyUnread](text: string): Real {
      return this[makeReal](text);
    }

    [keepText](text: string): void {
      this.#text = text;
    }

    // The same body, stream and all; consumed already when this text was read, as a read stream would be.
    #materialise(): Real {
      if (this.#real === undefined) {
        this.#real = this[makeReal](this.#text ?? "");
        if (this.#used) this.#real.arrayBuffer().catch(() => {});
      }
      return this.#real;
    }

    #take(): string {
      if (this.#text === undefined) return "";
      if (this.#used) throw new TypeError("Body is unusable: Body has already been read");
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

    // Not inherited: a `Response.prototype.bytes` would read the empty body the holder was made with. Where the Node
    // release has no `bytes()`, this throws as calling the missing one would.
    bytes(): Promise<Uint8Array> {
      return (this.#materialise() as Real & { bytes(): Promise<Uint8Array> }).bytes();
    }

    clone(): Real {
      if (this.#real !== undefined || this.#used) return this.#materialise().clone() as Real;
      return this[copyUnread](this.#text ?? "");
    }
  }
  return LazyTextBody;
}
