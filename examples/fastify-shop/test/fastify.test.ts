// What is particular to Fastify, over real HTTP against the fake provider: the webhook plugin reads the exact bytes
// a signature covers while the shop's own routes keep Fastify's JSON parser and limits, Fastify's refusals and 404s
// answer in the shop's error body (a 404 never repeats a `?token=`), and `kirimbayarClients` decorates the app with
// the shop's own clients.
import { createShopRuntime, loadShopConfig, type Order } from "@kirimbayar/example-shop-domain";
import {
  createFakeProvider,
  type FakeProvider,
  fixtures,
  type RunningServer,
  signCallbackBody,
} from "@kirimbayar/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeProviderEnv } from "../../shop-domain/test/support/shop-flow.js";
import { createApp } from "../src/app.js";
import { type RunningShop, startShop } from "../src/server.js";

describe("fastify shop: raw bodies, parsers and errors", () => {
  let provider: FakeProvider;
  let server: RunningServer;
  let env: Record<string, string>;
  let shop: RunningShop;

  beforeEach(async () => {
    provider = createFakeProvider();
    server = await provider.listen();
    env = fakeProviderEnv(provider, server.url);
    shop = await startShop(loadShopConfig(env));
  });

  afterEach(async () => {
    await provider.webhooks.settled();
    await shop.close();
    await server.close();
  });

  const send = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${shop.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    });

  const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string } }).error;

  async function orderPaidByVa(): Promise<{ order: Order; paymentId: string }> {
    const destinations = (await (await fetch(`${shop.url}/shipping/destinations?search=braga`)).json()) as {
      data: { id: number }[];
    };
    const created = await send(
      "/orders",
      JSON.stringify({
        customer: { name: "Budi", email: "budi@example.test", phone: "081298765432" },
        items: [{ name: "Keripik Tempe", quantity: 3, price: 15_000, weight: 200 }],
        destination_id: destinations.data[0]?.id,
        courier: "jne",
        service: "REG",
      }),
    );
    expect(created.status).toBe(201);
    const { order } = ((await created.json()) as { data: { order: Order } }).data;
    const va = await send(`/orders/${order.id}/pay-by-va`, JSON.stringify({ bank_code: "BCA" }));
    expect(va.status).toBe(201);
    const { payment } = ((await va.json()) as { data: { payment: { payment_id: string } } }).data;
    return { order, paymentId: payment.payment_id };
  }

  it("verifies a payment callback over the exact bytes sent, not a re-serialised body", async () => {
    const { order, paymentId } = await orderPaidByVa();
    const callback = fixtures.paymentCallback({ payment_id: paymentId, order_id: order.id, amount: order.total });
    // Pretty-printed: any parse-and-stringify on the way would change the bytes the HMAC covers.
    const pretty = JSON.stringify(callback, null, 2);
    const signature = signCallbackBody(pretty, env.KIRIMBAYAR_CALLBACK_API_KEY ?? "");

    const reserialised = await send("/webhooks/payment", JSON.stringify(callback), { "x-callback-api-key": signature });
    expect(reserialised.status).toBe(401);
    const accepted = await send("/webhooks/payment", pretty, { "x-callback-api-key": signature });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ success: true, message: expect.any(String) });

    const current = ((await (await fetch(`${shop.url}/orders/${order.id}`)).json()) as { data: Order }).data;
    expect(current.status).toBe("paid");
    expect(current.payments.map((p) => `${p.method}:${p.state}`)).toEqual(["qris:pending", "va:paid"]);
  });

  it("answers Fastify's body refusals in the shop's error body, before calling the provider", async () => {
    const before = provider.requests.length;
    const tooLarge = await send(
      "/shipping/quote",
      JSON.stringify({ destination_id: 1, weight: 1, pad: "x".repeat(110_000) }),
    );
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toEqual({ error: { code: "invalid_request", message: expect.any(String) } });
    const empty = await send("/shipping/quote", "");
    expect(empty.status).toBe(400);
    expect((await errorOf(empty)).code).toBe("invalid_request");
    const notJson = await send("/orders", "{not json");
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toEqual({ error: { code: "invalid_request", message: "The body is not valid JSON" } });
    const xml = await send("/orders", "<order/>", { "content-type": "application/xml" });
    expect(xml.status).toBe(415);
    expect((await errorOf(xml)).code).toBe("invalid_request");
    expect(provider.requests.length).toBe(before);
  });

  it("keeps the webhook plugin's own answers on its routes: core's 415 for a body that is not JSON", async () => {
    const secret = env.KIRIMBAYAR_WEBHOOK_SECRET ?? "";
    const response = await send(`/webhooks/orders?token=${secret}`, "order_no=ORD-1", {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(response.status).toBe(415);
    expect(((await response.json()) as { success: boolean }).success).toBe(false);
  });

  it("answers a delivery to a path it does not serve with a 404 that does not repeat the token", async () => {
    const secret = env.KIRIMBAYAR_WEBHOOK_SECRET ?? "";
    const response = await send(`/webhooks/qrs?token=${secret}`, "{}");
    expect(response.status).toBe(404);
    const text = await response.text();
    expect(text).not.toContain(secret);
    expect(JSON.parse(text)).toEqual({ error: { code: "not_found", message: "No route POST /webhooks/qrs" } });
  });
});

describe("fastify shop: kirimbayarClients", () => {
  it("decorates the app with the clients the shop itself calls", async () => {
    const provider = createFakeProvider();
    const runtime = await createShopRuntime(loadShopConfig(fakeProviderEnv(provider, provider.baseUrl)), {
      fetch: provider.fetch,
      publicBaseUrl: () => "http://shop.invalid",
    });
    const app = createApp(runtime);
    try {
      await app.ready();
      expect(app.kirimbayar.shipping).toBe(runtime.clients.shipping);
      expect(app.kirimbayar.qris).toBe(runtime.clients.qris);
      expect(app.kirimbayar.paymentGateway).toBe(runtime.clients.payment);
      expect(app.kirimbayar.orderWebhook).toBe(runtime.clients.orderWebhook);
    } finally {
      await app.close();
      await runtime.close();
    }
  });
});
