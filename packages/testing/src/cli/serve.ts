import type { FakeIdMode } from "../fake/ids.js";
import { createFakeProvider } from "../fake/provider.js";
import { CONTROL_PREFIX, SIMULATOR_PATH } from "../fake/routes/control.js";
import { type FAKE_SERVICES, KEY_LOCATION } from "../fake/services.js";

/** Options of `kirimbayar-fake serve`. */
export interface ServeOptions {
  port: number;
  host: string;
  seed: string;
  /** `unique` (default) or `seeded`: see the provider's `ids` option. */
  ids?: FakeIdMode;
  qrisWebhookUrl?: string;
  ordersWebhookUrl?: string;
  apiKey?: string;
}

/** Each core client, the service whose key it takes, and the paths it adds to its `baseUrl` (for the banner). */
export const CLIENTS: readonly { client: string; service: (typeof FAKE_SERVICES)[number]; paths: string }[] = [
  { client: "PaymentGatewayClient", service: "payment", paths: "/user/api/v1/user/..." },
  { client: "QrisClient", service: "qris", paths: "/user/api/v1/qr/..., /user/api/v1/qrisly/..." },
  { client: "ShippingClient", service: "shipping", paths: "/api/v1/..." },
  { client: "ShippingProClient", service: "pro", paths: "/api/..., /api/v2/..." },
  { client: "ShippingStarterClient", service: "starter", paths: "/starter/..." },
  { client: "OrderWebhookClient", service: "orders", paths: "/order/api/v1/..." },
];

/** Whether `host` only accepts connections from this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127(?:\.\d{1,3}){3}$/.test(bare);
}

/** What `serve` prints before binding to an interface other machines can reach. */
export function exposureWarning(host: string): string {
  return [
    `WARNING: binding to ${host} exposes a fake payment provider to other machines: anyone who can reach this port`,
    "can pay, expire and cancel payments, move orders and send webhooks to your app through its unauthenticated",
    "control API and simulator page. Use it only on a network you trust; the default is 127.0.0.1.",
  ].join("\n");
}

/** Starts the fake on a real port with the wall clock and prints what to configure. Resolves to a stop function. */
export async function serve(
  options: ServeOptions,
  log: (line: string) => void,
  warn: (line: string) => void = log,
): Promise<() => Promise<void>> {
  if (!isLoopbackHost(options.host)) warn(exposureWarning(options.host));
  const provider = createFakeProvider({
    clock: "real",
    seed: options.seed,
    ...(options.ids === undefined ? {} : { ids: options.ids }),
    controlApi: true,
    ...(options.apiKey ? { apiKeys: options.apiKey } : {}),
    webhooks: {
      ...(options.qrisWebhookUrl ? { qrisUrl: options.qrisWebhookUrl } : {}),
      ...(options.ordersWebhookUrl ? { ordersUrl: options.ordersWebhookUrl } : {}),
    },
  });
  const server = await provider.listen({ port: options.port, host: options.host });
  log(`kirimbayar fake provider listening on ${server.url}`);
  log(`Simulator page (pay, expire, cancel, move the clock, watch webhooks): ${server.url}${SIMULATOR_PATH}`);
  log("");
  // The clients add the services' paths themselves: every one takes the bare origin as its baseUrl.
  log("Each client's baseUrl and apiKey, to pass as printed (the client adds the paths):");
  for (const { client, service, paths } of CLIENTS) {
    const key = provider.apiKeys[service][0] ?? "";
    log(`  ${client.padEnd(22)} baseUrl ${server.url}  apiKey ${key.padEnd(18)} (${KEY_LOCATION[service]}; ${paths})`);
  }
  log(`  e.g. new QrisClient({ baseUrl: "${server.url}", apiKey: "${provider.apiKeys.qris[0] ?? ""}" })`);
  log("");
  log(`QR webhooks go to:    ${provider.qris.webhookUrl ?? "(none: pass --qris-webhook-url)"}`);
  log(
    `Order webhooks go to: ${provider.orders.webhookUrl ?? "(none: PUT /order/api/v1/webhook or --orders-webhook-url)"}`,
  );
  log("");
  log(`Control API (no auth, JSON): ${server.url}${CONTROL_PREFIX}`);
  log("  POST /qris/pay {history_id}   POST /qris/expire {history_id}   PUT /qris/webhook-url {url}");
  log("  POST /payments/pay {payment_id}   POST /payments/expire {payment_id}   POST /payments/cancel {payment_id}");
  log("  POST /orders {courier?}   POST /orders/status {order_no, status}");
  log("  POST /clock/advance {ms}   POST /webhooks/fail-next {count}   GET /state   GET /deliveries");
  log("Press Ctrl+C to stop.");
  return () => server.close();
}
