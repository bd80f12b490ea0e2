// What the webhook app reads from Node's own request when it runs on @hono/node-server, which passes that request
// as `c.env.incoming`. Both shortcuts skip work the Web API view of the request would redo on every delivery;
// elsewhere (Bun, Deno, Workers, `app.request()`) there is no `incoming` and the app uses `c.req`.

/** The slice of Node's `IncomingMessage` used here (this package has no Node types: it runs on every runtime). */
export interface NodeIncoming {
  headers: Record<string, string | string[] | undefined>;
  readonly readableDidRead: boolean;
  readonly readableEnded: boolean;
  readonly readableEncoding: string | null;
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  on(event: "end" | "close", listener: () => void): unknown;
  on(event: "error", listener: (error: unknown) => void): unknown;
}

/** Node's request behind `c.env` on @hono/node-server, or `undefined` on any other runtime. */
export function nodeIncomingOf(env: unknown): NodeIncoming | undefined {
  const incoming = (env as { incoming?: Partial<NodeIncoming> } | undefined)?.incoming;
  return incoming !== null &&
    typeof incoming === "object" &&
    typeof incoming.headers === "object" &&
    incoming.headers !== null &&
    typeof incoming.on === "function"
    ? (incoming as NodeIncoming)
    : undefined;
}

/**
 * Whether the body can be read from Node's stream directly: nobody has started reading it and it is still raw bytes
 * (no `setEncoding`, no `rawBody` that a host such as Cloud Functions already consumed). The app has already ruled
 * out a body read through `c.req`, whose cache then serves it.
 */
export function canReadDirectly(incoming: NodeIncoming): boolean {
  return (
    !incoming.readableDidRead &&
    !incoming.readableEnded &&
    incoming.readableEncoding === null &&
    !("rawBody" in incoming)
  );
}

/**
 * Reads the whole body from Node's stream. Its chunks are already `Uint8Array`s, so a one-chunk body (the usual
 * webhook) reaches core without a copy; `c.req.arrayBuffer()` would copy it into a new `ArrayBuffer`, which costs
 * about a microsecond per delivery at Hono's speeds. Call it only for a body whose `content-length` is within the
 * limit: Node's parser then delivers exactly that many bytes.
 */
export function readNodeBody(incoming: NodeIncoming): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    incoming.on("data", (chunk) => chunks.push(chunk));
    incoming.on("end", () => resolve(chunks.length === 1 ? (chunks[0] as Uint8Array) : concat(chunks)));
    incoming.on("error", reject);
    incoming.on("close", () => {
      if (!incoming.readableEnded) reject(new Error("The client closed the connection before the body ended"));
    });
  });
}

function concat(chunks: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const chunk of chunks) length += chunk.byteLength;
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
