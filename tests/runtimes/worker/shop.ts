// The shop every runtime serves: the QRIS webhook app of @kirimbayar/hono at /webhooks, a route showing what the
// handler recorded, and a route making one QrisClient call to the fake provider. Runtime-neutral: no `node:`
// import, no runtime global. Each entry (bun.ts, deno.ts, workerd.ts; Node in the test) only reads its
// configuration and serves `app.fetch`.
import { QrisClient } from "@kirimbayar/core";
import { createWebhookReceiver, tokenVerifier } from "@kirimbayar/core/webhooks";
import { createWebhookApp } from "@kirimbayar/hono";
import { Hono } from "hono";

/** What a shop needs: the QRIS webhook token and where the QR service (the fake) answers. */
export interface ShopConfig {
  qrisToken: string;
  qrisApiKey: string;
  qrisBaseUrl: string;
}

/** One event a handler saw. */
export interface RecordedEvent {
  event: string;
  historyId: string;
  amount: number;
}

/** The environment variable names the Bun and Deno entries read, and the workerd entry's bindings. */
export const CONFIG_NAMES = {
  qrisToken: "QRIS_WEBHOOK_TOKEN",
  qrisApiKey: "QRIS_API_KEY",
  qrisBaseUrl: "QRIS_BASE_URL",
} as const satisfies Record<keyof ShopConfig, string>;

/** Environment variable of the Bun and Deno entries: they exit by themselves after this many milliseconds. */
export const LIFETIME_NAME = "SHOP_LIFETIME_MS";

/** Reads the configuration through `get` (process.env, Deno.env.get, a Workers env) or throws naming what is missing. */
export function readConfig(get: (name: string) => string | undefined): ShopConfig {
  const entries = Object.entries(CONFIG_NAMES).map(([key, name]) => {
    const value = get(name);
    if (value === undefined || value === "") throw new Error(`runtime shop: ${name} is not set`);
    return [key, value];
  });
  return Object.fromEntries(entries) as unknown as ShopConfig;
}

/**
 * `POST /webhooks/qris?token=...` (createWebhookApp), `GET /events` (what the handler recorded) and
 * `GET /client/qris?amount=N[&fetch=wrapper]` (one `QrisClient.generateQris` against `qrisBaseUrl`).
 */
export function buildShop(config: ShopConfig): Hono {
  const recorded: RecordedEvent[] = [];
  const qris = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [config.qrisToken], in: "query", name: "token" })],
  });
  qris.on("payment.success", async (event) => {
    recorded.push({ event: event.event, historyId: String(event.data.qris_history_id), amount: event.data.amount });
  });
  // The documented way: no `fetch` option, so the client calls the runtime's global fetch. And the same client
  // given `fetch` as a plain wrapper, which calls the global fetch as a free function whatever core does with it.
  const clients = {
    default: new QrisClient({ apiKey: config.qrisApiKey, baseUrl: config.qrisBaseUrl }),
    wrapper: new QrisClient({
      apiKey: config.qrisApiKey,
      baseUrl: config.qrisBaseUrl,
      fetch: (input, init) => fetch(input, init),
    }),
  };

  const app = new Hono();
  app.route("/webhooks", createWebhookApp({ qris }));
  app.get("/events", (c) => c.json(recorded));
  app.get("/client/qris", async (c) => {
    const client = c.req.query("fetch") === "wrapper" ? clients.wrapper : clients.default;
    try {
      const { status, data } = await client.generateQris({
        qris_id: 1,
        amount: Number(c.req.query("amount") ?? "50000"),
        output_type: "string",
      });
      return c.json({ status, data });
    } catch (error) {
      // Legible in the test's diff instead of Hono's bare 500.
      const { name, message } = error instanceof Error ? error : new Error(String(error));
      return c.json({ error: { name, message } }, 502);
    }
  });
  return app;
}
