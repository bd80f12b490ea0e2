import { ConnectionError, RequestAbortedError, type RequestLocation, TimeoutError } from "../errors/network.js";
import type { FetchLike } from "./options.js";
import { type Redactor, sanitizeCause } from "./redact.js";

/** The response of one attempt, with its body already read as text. */
export interface AttemptResult {
  response: Response;
  text: string;
}

/** Inputs of one HTTP attempt. */
export interface AttemptInput {
  fetch: FetchLike;
  url: string;
  init: RequestInit;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  location: RequestLocation;
  /** Writes get a warning in network errors: the provider may have processed them. */
  idempotent: boolean;
  redactor: Redactor;
}

/**
 * Sends one request and reads its whole body within `timeoutMs`, combining the timeout with the caller's signal.
 * Works even with a `fetch` that ignores its signal. Throws {@link TimeoutError}, {@link RequestAbortedError} or
 * {@link ConnectionError} (with a secret-free cause).
 *
 * @example
 * const { response, text } = await sendAttempt({ fetch, url, init: { method: "GET" }, timeoutMs: 30_000, ... });
 */
export async function sendAttempt(input: AttemptInput): Promise<AttemptResult> {
  const { signal, location } = input;
  if (signal?.aborted) throw new RequestAbortedError(location, signal.reason);
  const controller = new AbortController();
  let timedOut = false;
  let rejectOnAbort: (reason: unknown) => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    rejectOnAbort = reject;
  });
  const onCallerAbort = () => {
    controller.abort(signal?.reason);
    rejectOnAbort(signal?.reason);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
    rejectOnAbort(undefined);
  }, input.timeoutMs);
  signal?.addEventListener("abort", onCallerAbort, { once: true });
  const exchange = (async () => {
    // Object.assign, not a spread: V8 takes a far slower path for a spread followed by more properties.
    // Called as a plain function: workerd (Cloudflare Workers) refuses a global fetch called as a method of another
    // object ("Illegal invocation"); Node, Bun and Deno do not mind.
    const fetch = input.fetch;
    const response = await fetch(input.url, Object.assign({}, input.init, { signal: controller.signal }));
    return { response, text: await response.text() };
  })();
  exchange.catch(() => {});
  try {
    return await Promise.race([exchange, aborted]);
  } catch (error) {
    if (signal?.aborted) throw new RequestAbortedError(location, signal.reason);
    if (timedOut) throw new TimeoutError(location, input.timeoutMs, writeWarning(input));
    throw new ConnectionError(networkMessage(input, error), location, sanitizeCause(error, input.redactor));
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onCallerAbort);
  }
}

const networkMessage = (input: AttemptInput, error: unknown): string => {
  const reason = error instanceof Error ? input.redactor.text(error.message) : "unknown network error";
  return `${input.location.method} ${input.location.path} failed before a response arrived (${reason}).${writeWarning(input)}`;
};

const writeWarning = (input: AttemptInput): string =>
  input.idempotent ? "" : " The provider may have processed it: check its status before sending it again.";
