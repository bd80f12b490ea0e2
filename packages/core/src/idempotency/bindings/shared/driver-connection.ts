// The driver connection under a library's transaction (`pg`'s Client or PoolClient, `mysql2`'s Connection or
// PoolConnection, callback or promise style), closed when a delivery's handlers ran out of time.

/** What closing needs of a `pg` or `mysql2` connection. */
interface ClosableConnection {
  /** mysql2: closes the socket at once (queued commands fail). */
  destroy?: () => void;
  /** pg: destroys the socket when a query is running, else says goodbye; later queries fail. */
  end?: () => unknown;
  on?: (event: "error", listener: () => void) => unknown;
}

/**
 * Closes `connection` at once: the database rolls back its open transaction (and frees its session locks), whatever
 * is queued on it fails, and its library's pool drops it rather than lending it again. Nothing sent on it later can
 * run, let alone commit.
 */
export function closeDriverConnection(connection: unknown): void {
  const closable = connection as ClosableConnection | null | undefined;
  if (closable === null || typeof closable !== "object") return;
  // The failure of the statements in flight is reported to whoever sent them; an `error` event without a listener
  // would crash the process.
  closable.on?.("error", () => {});
  if (typeof closable.destroy === "function") {
    closable.destroy();
  } else if (typeof closable.end === "function") {
    Promise.resolve(closable.end()).catch(() => {});
  }
}
