/**
 * What the Redis store reads of a client to tell whether it is on its way back (ioredis `status`, node-redis
 * `isOpen` and `isReady`) and to hear when it is (both clients are event emitters and emit `ready` and `end`).
 */
export interface ObservableRedisClient {
  readonly status?: unknown;
  readonly isOpen?: unknown;
  readonly isReady?: unknown;
  once?(event: string, listener: () => void): unknown;
  off?(event: string, listener: () => void): unknown;
}

/**
 * Lets a command wait for a client that is reconnecting instead of failing at once. Without an offline queue the
 * client refuses commands until it is ready again, so after an outage the first delivery would be answered 503 even
 * though Redis is back and the client a few milliseconds from ready. The store waits within its own time limit and
 * sends nothing once that ran out, so no command outlives the delivery that sent it (what an offline queue does).
 * One listener per client, however many commands wait.
 */
export class RedisReadiness {
  #waiting: Promise<void> | undefined;

  constructor(private readonly client: ObservableRedisClient) {}

  /** `undefined`: send now (connected, or not reconnecting by itself); else resolves once it is ready or gave up. */
  whenReady(): Promise<void> | undefined {
    if (!reconnecting(this.client)) return undefined;
    if (this.#waiting !== undefined) return this.#waiting;
    const client = this.client;
    if (typeof client.once !== "function") return undefined;
    this.#waiting = new Promise<void>((resolve) => {
      const done = () => {
        client.off?.("ready", done);
        client.off?.("end", done);
        this.#waiting = undefined;
        resolve();
      };
      client.once?.("ready", done);
      client.once?.("end", done);
    });
    return this.#waiting;
  }
}

// ioredis: connecting, connected but not ready yet, or waiting out its retry back-off. node-redis: open (it
// reconnects by itself) but not ready.
function reconnecting(client: ObservableRedisClient): boolean {
  if (typeof client.status === "string") {
    return client.status === "reconnecting" || client.status === "connecting" || client.status === "connect";
  }
  return client.isReady === false && client.isOpen === true;
}
