// The sentinel-key leak test: no error any client produces may reveal the API key, in any view of the error.
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { KirimbayarError } from "../src/errors/base.js";
import { Transport } from "../src/http/transport.js";
import { OrderWebhookClient } from "../src/orders/client.js";
import { PaymentGatewayClient } from "../src/payment/client.js";
import { QrisClient } from "../src/qris/client.js";
import { hangingFetch, json, SENTINEL_KEY, scriptedFetch } from "./http-support.js";

const CALLBACK_SECRET = "CB-SECRET-77aa88bb";
const BASE = "https://api.example.id";
const LEAK = /SENTINEL/;

const views = (error: unknown): string[] => {
  const e = error as Error & { toJSON?: () => unknown };
  return [
    String(e),
    e.message,
    e.stack ?? "",
    JSON.stringify(e),
    JSON.stringify(Object.assign({}, e)),
    inspect(e, { depth: 10, showHidden: true, getters: true }),
    inspect(e.cause, { depth: 10, showHidden: true }),
  ];
};

const expectNoLeak = (error: unknown, leak = LEAK) => {
  expect(error).toBeInstanceOf(KirimbayarError);
  for (const view of views(error)) expect(view).not.toMatch(leak);
};

// A few answers succeed for operations whose response shape is open (registerWebhook): check the result instead.
const expectNoLeakIn = (outcome: unknown) => {
  if (outcome instanceof Error) return expectNoLeak(outcome);
  expect(JSON.stringify(outcome)).not.toMatch(LEAK);
};

// Provider answers that echo the key back in every place it could appear.
const echoing = [
  json(
    { meta: { code: 401, status: "error", message: `key ${SENTINEL_KEY} invalid` }, data: { key: SENTINEL_KEY } },
    401,
  ),
  json(
    { success: false, message: `bad key ${encodeURIComponent(SENTINEL_KEY)}`, echo: { "x-api-key": SENTINEL_KEY } },
    400,
  ),
  json(
    { rajaongkir: { query: { key: SENTINEL_KEY }, status: { code: 400, description: `Invalid key ${SENTINEL_KEY}` } } },
    400,
  ),
  json({ error_code: "E42", message: `rate ${SENTINEL_KEY}` }, 429, { "Retry-After": "999" }),
  json({ meta: { code: 500, status: "error", message: SENTINEL_KEY } }, 500),
  new Response(`<html>${SENTINEL_KEY}</html>`, { status: 200 }),
  new Error(`connect ECONNREFUSED https://api.example.id/?key=${SENTINEL_KEY}`),
];

const clients = (fetch: ReturnType<typeof scriptedFetch>) => {
  const options = { apiKey: `  ${SENTINEL_KEY}  `, baseUrl: BASE, fetch, maxRetries: 0 };
  return {
    payments: new PaymentGatewayClient(options),
    qris: new QrisClient(options),
    orders: new OrderWebhookClient(options),
  };
};

const createInput = {
  order_id: "INV-1",
  payment_type: "bank_transfer" as const,
  channel_code: "BCA",
  amount: 50_000,
  customer: { name: "Budi", email: "budi@example.id", phone: "0812" },
  items: [{ name: "Kopi", quantity: 2, price: 25_000 }],
  callback_url: "https://shop.example.id/cb",
  callback_api_key: CALLBACK_SECRET,
};

describe("a sentinel API key never leaks", () => {
  it.each(echoing.map((answer, index) => [index, answer] as const))(
    "through errors of every operation (answer %i)",
    async (_, answer) => {
      const { payments, qris, orders } = clients(scriptedFetch(answer));
      const calls = [
        () => payments.listMethods(),
        () => payments.createPayment(createInput),
        () => payments.getPaymentStatus("KPAY-1"),
        () => payments.cancelPayment({ payment_id: "KPAY-1" }),
        () => qris.generateQris({ qris_id: 1, amount: 1000, output_type: "string" }),
        () => qris.getQrisPaymentStatus("h1"),
        () => qris.uploadQris({ name: "T", qris_image: new Uint8Array([0xff, 0xd8, 0xff, 0xe0]) }),
        () => orders.registerWebhook({ url: "https://shop.example.id/h" }),
      ];
      for (const call of calls) expectNoLeakIn(await call().catch((e: unknown) => e));
    },
  );

  it("nor does the callback key of a create, whatever the provider echoes", async () => {
    for (const status of [200, 400, 422, 500]) {
      const echo = json(
        {
          meta: { code: status, status: "error", message: `callback ${CALLBACK_SECRET}` },
          data: { callback_api_key: CALLBACK_SECRET, other: CALLBACK_SECRET },
        },
        status,
      );
      const error = await clients(scriptedFetch(echo))
        .payments.createPayment(createInput)
        .catch((e: unknown) => e);
      expectNoLeak(error, /CB-SECRET/);
    }
  });

  it("through results that echo it", async () => {
    const fetch = scriptedFetch(
      json({ meta: { code: 200, status: "success", message: SENTINEL_KEY }, data: [{ key: SENTINEL_KEY }] }),
    );
    const result = await clients(fetch).payments.listMethods();
    expect(JSON.stringify(result.raw)).not.toMatch(LEAK);
    expect(result.rawBody).not.toMatch(LEAK);
    expect(JSON.stringify(result.data)).not.toMatch(LEAK);
  });

  it("through timeouts and aborts", async () => {
    const payments = new PaymentGatewayClient({
      apiKey: SENTINEL_KEY,
      baseUrl: BASE,
      fetch: hangingFetch,
      maxRetries: 0,
    });
    expectNoLeak(await payments.listMethods({ timeoutMs: 5 }).catch((e: unknown) => e));
    expectNoLeak(await payments.listMethods({ signal: AbortSignal.abort() }).catch((e: unknown) => e));
  });

  it("through validation and configuration errors", async () => {
    const { payments, qris, orders } = clients(scriptedFetch(json({})));
    expectNoLeak(
      await payments.createPayment({ ...createInput, amount: 1, callback_url: "nope" }).catch((e: unknown) => e),
    );
    expectNoLeak(
      await payments.createPayment({ ...createInput, customer: SENTINEL_KEY } as never).catch((e: unknown) => e),
    );
    expectNoLeak(
      await qris.generateQris({ qris_id: SENTINEL_KEY, amount: SENTINEL_KEY } as never).catch((e: unknown) => e),
    );
    expectNoLeak(await orders.registerWebhook({ url: SENTINEL_KEY }).catch((e: unknown) => e));
    const config = (apiKey: string, baseUrl = BASE) => {
      try {
        new PaymentGatewayClient({ apiKey, baseUrl });
      } catch (error) {
        return error;
      }
      return undefined;
    };
    expectNoLeak(config(`${SENTINEL_KEY}\n${SENTINEL_KEY}`));
    expectNoLeak(config(SENTINEL_KEY, "http://api.example.id"));
    expectNoLeak(config(SENTINEL_KEY, ""));
  });

  it("through inspecting the clients and the transport", () => {
    const { payments, qris, orders } = clients(scriptedFetch(json({})));
    const transport = new Transport({ apiKey: SENTINEL_KEY, baseUrl: BASE }, [
      { in: "header", name: "X-API-Key", option: "apiKey", value: SENTINEL_KEY },
    ]);
    for (const object of [payments, qris, orders, transport]) {
      expect(inspect(object, { depth: 10, showHidden: true })).not.toMatch(LEAK);
      expect(JSON.stringify(object)).not.toMatch(LEAK);
    }
  });
});
