import type { CryptoProvider } from "../../crypto/types.js";

/** The sources a receiver can serve: QR payment events, payment gateway callbacks, order status changes. */
export type WebhookSource = "qris" | "payment" | "orders";

/** Outcome of one verifier: passed, or failed with a reason that names what was wrong (never a secret). */
export type VerificationResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** What a request verifier may look at, before the body is parsed. */
export interface VerificationRequest {
  /** HTTP method, upper case. */
  readonly method: string;
  /** Path and query as received, or an absolute URL. */
  readonly url: string;
  /** One header by name (case-insensitive); repeated headers are joined with `, `. */
  header(name: string): string | undefined;
  /** The exact body bytes. */
  readonly rawBody: Uint8Array;
  /** Peer address of the TCP connection, when the adapter knows it. */
  readonly remoteAddress: string | undefined;
  /** The receiver's crypto provider. */
  readonly crypto: CryptoProvider;
  /** Receipt time from the receiver's clock, in epoch milliseconds. */
  readonly now: number;
}

/**
 * Checks a delivery before its body is parsed (token, signature, source IP). Every verifier of a receiver must
 * pass; a failure is answered 401 with the reason.
 *
 * @example
 * const onlyPost: RequestVerifier = {
 *   kind: "request", name: "custom",
 *   verify: (request) => request.header("x-my-secret") ? VERIFIED : verificationFailed("header X-My-Secret is missing"),
 * };
 */
export interface RequestVerifier {
  readonly kind: "request";
  /** Shown in diagnostics, e.g. `"token"`. */
  readonly name: string;
  /** Sources this verifier is meaningful for; the receiver refuses it on any other. All when absent. */
  readonly sources?: readonly WebhookSource[];
  verify(request: VerificationRequest): VerificationResult | PromiseLike<VerificationResult>;
}

/**
 * Checks a delivery after its body was parsed and validated (e.g. the QR envelope's timestamp).
 *
 * @example
 * const notTest: EventVerifier = { kind: "event", name: "no-test", verify: (event) =>
 *   (event as { data?: { test?: boolean } }).data?.test ? verificationFailed("test events are refused") : VERIFIED };
 */
export interface EventVerifier {
  readonly kind: "event";
  readonly name: string;
  readonly sources?: readonly WebhookSource[];
  verify(event: unknown, request: VerificationRequest): VerificationResult | PromiseLike<VerificationResult>;
}

/** Any verifier a receiver accepts in its `verify` list. */
export type WebhookVerifier = RequestVerifier | EventVerifier;

/**
 * The shared "passed" result.
 *
 * @example
 * return VERIFIED;
 */
export const VERIFIED: VerificationResult = Object.freeze({ ok: true });

/**
 * A failed result with a reason (which must never contain a secret).
 *
 * @example
 * return verificationFailed("header X-Callback-Api-Key is missing");
 */
export function verificationFailed(reason: string): VerificationResult {
  return { ok: false, reason };
}
