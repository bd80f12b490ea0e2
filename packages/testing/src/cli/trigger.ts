import { createFixtures } from "../fixtures/index.js";
import { toWebhookRequest } from "../webhook-request.js";

/** Events `kirimbayar-fake trigger` can send. */
export const TRIGGER_EVENTS = ["payment.success", "payment.expired", "payment.callback", "order.status"] as const;

/** Options of `kirimbayar-fake trigger`. */
export interface TriggerOptions {
  to: string;
  token?: string;
  callbackKey?: string;
  status?: string;
  amount?: number;
  seed: string;
  method?: string;
}

/** Builds the fixture for `event`, sends it to `--to` and prints the exchange. Resolves to the HTTP status. */
export async function trigger(event: string, options: TriggerOptions, log: (line: string) => void): Promise<number> {
  const fixtures = createFixtures({ seed: options.seed, now: () => Date.now() });
  const amount = options.amount === undefined ? {} : { amount: options.amount };
  let body: unknown;
  switch (event) {
    case "payment.success":
      body = fixtures.qrisPaymentSuccess(amount);
      break;
    case "payment.expired":
      body = fixtures.qrisPaymentExpired(amount);
      break;
    case "payment.callback":
      if (!options.callbackKey)
        throw new Error("payment.callback needs --callback-key (the callback_api_key your app sent)");
      body = fixtures.paymentCallback({ ...amount, ...(options.status ? { status: options.status as "PAID" } : {}) });
      break;
    case "order.status":
      body = fixtures.orderStatus(options.status ? { status: options.status } : {});
      break;
    default:
      throw new Error(`unknown event "${event}": use one of ${TRIGGER_EVENTS.join(", ")}`);
  }
  const request = toWebhookRequest(body, {
    url: options.to,
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(options.callbackKey === undefined || event !== "payment.callback"
      ? {}
      : { callbackApiKey: options.callbackKey }),
    ...(options.method ? { method: options.method } : {}),
  });
  log(`> ${request.method} ${options.to}${options.token === undefined ? "" : " (with ?token=…)"}`);
  for (const [name, value] of Object.entries(request.headers)) {
    log(`> ${name}: ${name === "x-callback-api-key" ? `${value.slice(0, 8)}…` : value}`);
  }
  log(`> ${request.rawBody}`);
  const response = await fetch(request.toRequest(), { signal: AbortSignal.timeout(15_000) });
  log(`< ${response.status} ${response.statusText}`);
  log(`< ${await response.text()}`);
  return response.status;
}
