import { utf8Bytes } from "../crypto/encoding.js";

/** Why a `rawBody` handed over by an adapter cannot be used, phrased as the fix. */
export function diagnoseRawBody(rawBody: unknown): string | undefined {
  if (rawBody instanceof Uint8Array || typeof rawBody === "string") return undefined;
  if (rawBody instanceof ArrayBuffer || ArrayBuffer.isView(rawBody)) return undefined;
  if (rawBody === undefined || rawBody === null) {
    return (
      "rawBody is missing: the adapter must pass the exact request bytes. With Express mount the webhook route " +
      "before express.json() (or use express.raw({ type: '*/*' }) on it); with NestJS create the app with " +
      "{ rawBody: true } and pass req.rawBody"
    );
  }
  if (typeof rawBody === "object") {
    return (
      "rawBody is an already-parsed object: a JSON body parser ran first, and verification needs the exact bytes. " +
      "Mount the webhook route before express.json() / bodyParser.json(), create the NestJS app with " +
      "{ rawBody: true } and pass req.rawBody, or (Hono) read the body with c.req.text() or c.req.arrayBuffer()"
    );
  }
  return `rawBody must be a Uint8Array or a string holding the exact request body, not a ${typeof rawBody}`;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * The request body as received, in the form each step needs it: bytes for signatures, text for JSON. Each form
 * is derived at most once and only if asked for, so a string body is never encoded unless a verifier hashes it.
 */
export class RequestBody {
  #bytes: Uint8Array | undefined;
  #text: string | undefined;

  constructor(rawBody: Uint8Array | string | ArrayBuffer | ArrayBufferView) {
    if (typeof rawBody === "string") this.#text = rawBody;
    else if (rawBody instanceof Uint8Array) this.#bytes = rawBody;
    else if (rawBody instanceof ArrayBuffer) this.#bytes = new Uint8Array(rawBody);
    else this.#bytes = new Uint8Array(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  }

  /** The exact bytes (UTF-8 of the text when the adapter passed a string). */
  get bytes(): Uint8Array {
    this.#bytes ??= utf8Bytes(this.#text as string);
    return this.#bytes;
  }

  /** Size in bytes, without encoding a string body unless it could be over `limit`. */
  exceeds(limit: number): boolean {
    if (this.#bytes !== undefined) return this.#bytes.length > limit;
    const text = this.#text as string;
    // A UTF-16 code unit never takes more than 3 UTF-8 bytes.
    if (text.length * 3 <= limit) return false;
    return this.bytes.length > limit;
  }

  /** The body as text; `undefined` when the bytes are not valid UTF-8. */
  text(): string | undefined {
    if (this.#text === undefined) {
      try {
        this.#text = strictUtf8.decode(this.#bytes as Uint8Array);
      } catch {
        return undefined;
      }
    }
    return this.#text;
  }
}
