// What the webhook app reads from Node's own request when it runs on @hono/node-server, which passes that request
// as `c.env.incoming`. Both shortcuts skip work the Web API view of the request would redo on every delivery;
// elsewhere (Bun, Deno, Workers, `app.request()`) there is no `incoming` and the app uses `c.req`.

/** The slice of Node's `IncomingMessage` used here (this package has no Node types: it runs on every runtime). */
export interface NodeIncoming {
  headers: Record<string, string | string[] | undefined>;
  readonly readableDidRead: boolean;
  readonly readableEnded: boolean;
  readonly readableEncoding: string | null;
  readonly complete?: boolean;
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
