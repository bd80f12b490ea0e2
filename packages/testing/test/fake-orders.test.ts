import { describe, expect, it } from "vitest";
import { FakeProviderError } from "../src/index.js";
import { api, fake, scriptedReceiver } from "./helpers.js";

describe("fake order service", () => {
  it("registers the webhook URL with x-api-key and delivers status changes to it", async () => {
    const receiver = scriptedReceiver();
    const provider = fake({ webhooks: { fetch: receiver.fetch } });
    const order = provider.orders.create({ order_no: "ORD-1" });
    await provider.orders.setStatus("ORD-1", "Dijemput");
    expect(receiver.received).toHaveLength(0);
    const response = await api(provider).orders.put("/order/api/v1/webhook", {
      url: "https://shop.test/webhooks/orders",
    });
    expect(response.status).toBe(200);
    expect((await response.json()).data.url).toBe("https://shop.test/webhooks/orders");
    await provider.orders.setStatus("ORD-1", "Dikirim");
    expect(receiver.received.map((r) => [r.method, r.url, JSON.parse(r.body)])).toEqual([
      ["POST", "https://shop.test/webhooks/orders", { order_no: "ORD-1", cnote: order.cnote, status: "Dikirim" }],
    ]);
    expect(provider.orders.get("ORD-1")?.status).toBe("Dikirim");
    await expect(provider.orders.setStatus("nope", "Selesai")).rejects.toThrow(FakeProviderError);
  });

  it("refuses registration without the key or with a bad URL", async () => {
    const provider = fake();
    const noKey = await api(provider).call("/order/api/v1/webhook", {
      method: "PUT",
      body: JSON.stringify({ url: "https://x.test" }),
      headers: { "content-type": "application/json" },
    });
    expect(noKey.status).toBe(401);
    expect((await api(provider).orders.put("/order/api/v1/webhook", { url: "ftp://x" })).status).toBe(422);
    expect((await api(provider).orders.put("/order/api/v1/webhook", {})).status).toBe(422);
  });

  it("a plain 200 acknowledges an order webhook; PUT delivery is configurable", async () => {
    const seen: string[] = [];
    const provider = fake({
      webhooks: {
        ordersUrl: "https://shop.test/o",
        ordersMethod: "PUT",
        fetch: async (request) => {
          seen.push(request.method);
          return new Response("ok");
        },
      },
    });
    const order = provider.orders.create();
    await provider.orders.setStatus(order.orderNo, "Selesai");
    await provider.clock.advance(30 * 60_000);
    expect(seen).toEqual(["PUT"]);
    expect(provider.deliveries[0]).toMatchObject({
      source: "orders",
      event: "order.status",
      acknowledged: true,
      status: 200,
    });
  });
});
