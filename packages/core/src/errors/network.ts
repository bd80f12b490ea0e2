import { KirimbayarError } from "./base.js";

/** Where a network-level failure happened. */
export interface RequestLocation {
  /** HTTP method, e.g. `"GET"`. */
  method: string;
  /** Request path without query string. */
  path: string;
  /** Operation name, e.g. `"listMethods"`. */
  operation?: string | undefined;
}

/**
 * The request could not be completed at the network level (DNS, refused connection, reset). No HTTP answer arrived.
 *
 * @example
 * catch (e) { if (e instanceof ConnectionError) console.log("provider unreachable", e.path) }
 */
export class ConnectionError extends KirimbayarError {
  /** HTTP method of the request. */
  readonly method: string;
  /** Request path without query string. */
  readonly path: string;
  /** Operation name, e.g. `"listMethods"`. */
  readonly operation: string | undefined;

  constructor(message: string, location: RequestLocation, cause?: unknown) {
    super(message, { code: "connection", cause });
    this.method = location.method;
    this.path = location.path;
    this.operation = location.operation;
  }
}

/**
 * No complete answer arrived within `timeoutMs` (per attempt).
 *
 * @example
 * catch (e) { if (e instanceof TimeoutError) console.log(`gave up after ${e.timeoutMs} ms`) }
 */
export class TimeoutError extends KirimbayarError {
  /** HTTP method of the request. */
  readonly method: string;
  /** Request path without query string. */
  readonly path: string;
  /** Operation name, e.g. `"listMethods"`. */
  readonly operation: string | undefined;
  /** The timeout that expired, in milliseconds. */
  readonly timeoutMs: number;

  constructor(location: RequestLocation, timeoutMs: number, hint = "") {
    super(`${location.method} ${location.path} timed out after ${timeoutMs} ms.${hint}`, { code: "timeout" });
    this.method = location.method;
    this.path = location.path;
    this.operation = location.operation;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The caller aborted the request through its own `signal`. `cause` is the signal's reason.
 *
 * @example
 * const ac = new AbortController(); ac.abort();
 * await client.listMethods({ signal: ac.signal }).catch((e) => e instanceof RequestAbortedError); // true
 */
export class RequestAbortedError extends KirimbayarError {
  /** HTTP method of the request. */
  readonly method: string;
  /** Request path without query string. */
  readonly path: string;
  /** Operation name, e.g. `"listMethods"`. */
  readonly operation: string | undefined;

  constructor(location: RequestLocation, reason: unknown) {
    super(`${location.method} ${location.path} was aborted by the caller`, { code: "aborted", cause: reason });
    this.method = location.method;
    this.path = location.path;
    this.operation = location.operation;
  }
}
