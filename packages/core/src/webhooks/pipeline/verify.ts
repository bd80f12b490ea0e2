import type { WebhookHttpResponse } from "../contract.js";
import { webhookResponse } from "../response.js";
import type { VerificationRequest, VerificationResult, WebhookVerifier } from "../verifiers/types.js";
import { adopt, type MaybeAsync } from "./thenable.js";

/**
 * The verify stage: the reason of the first verifier (from `from` on) that fails, or `undefined` when all pass.
 * Synchronous until a verifier returns a thenable; that verdict is adopted (see `adopt`) before the next runs.
 * Request verifiers get the delivery; event verifiers also get the parsed event.
 */
export function firstFailure(
  verifiers: readonly WebhookVerifier[],
  delivery: VerificationRequest,
  event: unknown,
  from = 0,
): MaybeAsync<string | undefined> {
  for (let i = from; i < verifiers.length; i++) {
    const verifier = verifiers[i] as WebhookVerifier;
    const result = adopt(verifier.kind === "request" ? verifier.verify(delivery) : verifier.verify(event, delivery));
    if (result instanceof Promise) {
      return result.then((settled) => failureOf(settled) ?? firstFailure(verifiers, delivery, event, i + 1));
    }
    const failure = failureOf(result);
    if (failure !== undefined) return failure;
  }
  return undefined;
}

/** Anything but an explicit `{ ok: true }` fails, so a custom verifier that forgets to return cannot let a request in. */
export function failureOf(result: VerificationResult | undefined): string | undefined {
  if (result?.ok === true) return undefined;
  const reason = (result as { reason?: unknown } | undefined)?.reason;
  return typeof reason === "string" ? reason : "verification failed";
}

export function unauthorized(reason: string): WebhookHttpResponse {
  return webhookResponse(401, `Unauthorized: ${reason}`);
}
