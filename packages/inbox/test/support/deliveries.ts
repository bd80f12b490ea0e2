// What the inbox tests send the web side (a QRIS `payment.success` webhook as the HTTP adapter hands it over), and
// the bounded wait they use for what the workers do in the background.
import type { WebhookHttpRequest } from "@kirimbayar/core/webhooks";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The body of a paid QRIS payment's webhook for `id`. */
export function paidEvent(id: string): string {
  return JSON.stringify({
    event: "payment.success",
    timestamp: "2026-03-01T03:00:00Z",
    data: { qris_history_id: id, amount: 10_000, status: "paid" },
  });
}

/** A delivery of `body` to the QRIS route, with `token` in the query (the tests' tokenVerifier). */
export function qrisDelivery(body: string, token: string): WebhookHttpRequest {
  return {
    method: "POST",
    url: `/webhooks/qris?token=${token}`,
    headers: { "content-type": "application/json" },
    rawBody: body,
  };
}

/** Waits until `check` holds, looking every `everyMs`; throws after `timeoutMs`. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  { timeoutMs = 20_000, everyMs = 50 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await sleep(everyMs);
  }
}
