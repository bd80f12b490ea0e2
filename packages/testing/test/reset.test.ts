// `provider.reset()`: one fake for a whole suite, each test starting from the state a new fake has.
import { QrisClient } from "@kirimbayar/core";
import { describe, expect, it } from "vitest";
import { createFakeProvider, DEFAULT_CLOCK_START, ManualClock, RealClock } from "../src/index.js";
import { api, fake, scriptedReceiver } from "./helpers.js";

async function generate(provider: ReturnType<typeof fake>, amount = 50_000) {
  const qris = new QrisClient({
    apiKey: provider.apiKeys.qris[0] ?? "",
    baseUrl: provider.baseUrl,
    fetch: provider.fetch,
  });
  return (await qris.generateQris({ qris_id: 1, amount, output_type: "string" })).data;
}

describe("provider.reset()", () => {
  it("forgets payments, QR codes, orders, deliveries, requests and faults, keeps the configuration; the clock goes back to its start", async () => {
    const receiver = scriptedReceiver([500]);
    const provider = fake({ webhooks: { qrisUrl: "https://shop.test/q?token=t", fetch: receiver.fetch } });
    const code = await generate(provider);
    await api(provider).payment.post("/user/api/v1/user/payment/create", {
      order_id: "ORDER-1",
      payment_type: "bank_transfer",
      channel_code: "BCA",
      amount: 150_000,
      customer: { name: "Budi", email: "budi@example.co.id", phone: "081234567890" },
      items: [{ name: "Kaos", quantity: 1, price: 150_000 }],
    });
    provider.orders.create();
    await provider.qris.pay(String(code.history_id)); // answered 500: a retry is due in a minute
    provider.failNext({ status: 503, times: 5 });
    provider.webhooks.failNext(3);
    provider.webhooks.duplicateNext(2);
    provider.webhooks.hold();
    provider.setLatency(5);
    provider.qris.setWebhookUrl("https://elsewhere.test/q");
    provider.qris.setWebhookShape("flat");
    provider.orders.setWebhookUrl("https://shop.test/orders");
    provider.qris.addConfig("Kasir Dua");
    await provider.clock.advance(30_000);

    provider.reset();

    expect(provider.qris.list()).toEqual([]);
    expect(provider.payments.list()).toEqual([]);
    expect(provider.orders.list()).toEqual([]);
    expect(provider.deliveries).toEqual([]);
    expect(provider.requests).toEqual([]);
    expect(provider.clock.now()).toBe(DEFAULT_CLOCK_START);
    expect(provider.webhooks.pendingFailures).toBe(0);
    expect(provider.webhooks.heldCount).toBe(0);
    // Configuration stays, even what the test (or the app at its boot) set after creation.
    expect(provider.qris.webhookUrl).toBe("https://elsewhere.test/q");
    expect(provider.qris.webhookShape).toBe("flat");
    expect(provider.orders.webhookUrl).toBe("https://shop.test/orders");
    // The retry that was due is gone with the old world: nothing is sent when its time comes.
    await provider.clock.advance(60 * 60_000);
    expect(receiver.received).toHaveLength(1);
    // Faults and latency are disarmed, and the default configuration is the only one again.
    const again = await generate(provider);
    expect(again.qris_id).toBe(1);
    expect(provider.requests.map((r) => r.status)).toEqual([200]);
    await provider.qris.pay(String(again.history_id));
    expect(provider.deliveries.map((d) => [d.attempt, d.duplicate, d.status, d.url])).toEqual([
      [1, false, 200, "https://elsewhere.test/q"],
    ]);
    expect(JSON.parse(receiver.received[1]?.body ?? "{}")).toMatchObject({ qris_history_id: again.history_id });
  });

  it("keeps the order webhook the app registered at boot, and a transport set with setFetch", async () => {
    const first = scriptedReceiver();
    const provider = fake({ webhooks: { fetch: first.fetch } });
    // What an app does once at its start: register its order webhook with the order service.
    const registered = await api(provider).orders.put("/order/api/v1/webhook", {
      url: "https://shop.test/orders?token=o",
    });
    expect(registered.status).toBe(200);
    const second = scriptedReceiver();
    provider.webhooks.setFetch(second.fetch);
    provider.reset();
    const order = provider.orders.create();
    await provider.orders.setStatus(order.orderNo, "Dikirim");
    expect(first.received).toEqual([]);
    expect(second.received.map((r) => [r.url, JSON.parse(r.body).order_no])).toEqual([
      ["https://shop.test/orders?token=o", order.orderNo],
    ]);
  });

  it('with ids: "seeded", repeats what a new fake with the same seed does: same ids, codes and amounts', async () => {
    const reused = fake({ ids: "seeded" });
    await generate(reused, 70_000);
    reused.orders.create();
    reused.reset();
    const fresh = fake({ ids: "seeded" });
    const [a, b] = [await generate(reused, 80_000), await generate(fresh, 80_000)];
    expect(a).toEqual(b);
    expect(reused.orders.create()).toEqual(fresh.orders.create());
  });

  it("by default, repeats the codes and amounts of a new fake with the same seed, but never its ids", async () => {
    const reused = fake();
    const before = await generate(reused, 70_000);
    reused.reset();
    const fresh = fake();
    const [a, b] = [await generate(reused, 70_000), await generate(fresh, 70_000)];
    expect([a.final_amount, a.unique_code, a.qris_id]).toEqual([b.final_amount, b.unique_code, b.qris_id]);
    expect(a.final_amount).toBe(before.final_amount);
    expect(new Set([before.history_id, a.history_id, b.history_id]).size).toBe(3);
  });

  it("resets the rate limit and keeps serving a running server", async () => {
    const provider = fake({ rateLimit: { limit: 1 } });
    const server = await provider.listen();
    try {
      const call = () =>
        fetch(`${server.url}/api/v1/destination/province`, { headers: { key: provider.apiKeys.shipping[0] ?? "" } });
      expect((await call()).status).toBe(200);
      expect((await call()).status).toBe(429);
      provider.reset();
      expect((await call()).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("cancels its timers on a clock you passed, without moving that clock back", async () => {
    const clock = new ManualClock(new Date("2026-03-01T00:00:00Z"));
    let own = false;
    clock.setTimer(() => {
      own = true;
    }, 60 * 60_000);
    const provider = createFakeProvider({ clock, seed: "own-clock" });
    await generate(provider);
    await clock.advance(5 * 60_000);
    provider.reset();
    expect(clock.now()).toBe(Date.parse("2026-03-01T00:05:00Z"));
    expect(clock.pendingTimers).toBe(1); // the QR code's expiry went, the caller's timer stayed
    await clock.advance(60 * 60_000);
    expect(own).toBe(true);
  });

  it("takes a wall clock back to real time", async () => {
    const provider = createFakeProvider({ clock: "real" });
    expect(provider.clock).toBeInstanceOf(RealClock);
    await provider.clock.advance(3_600_000);
    expect(provider.clock.now() - Date.now()).toBeGreaterThan(3_500_000);
    provider.reset();
    expect(Math.abs(provider.clock.now() - Date.now())).toBeLessThan(1_000);
  });
});
