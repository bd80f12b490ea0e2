// checkout.e2e.test.ts
import "reflect-metadata";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Order } from "./order.entity.js";
import { createTestApp, type TestApp } from "./test-app.js";

describe("checkout with QRIS", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterEach(() => t.reset());
  afterAll(() => t.close());

  async function checkout(total: number) {
    const response = await t.request("/orders", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ total }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { id: number; qris_history_id: string };
  }
  const statusOf = async (id: number) => ((await (await t.request(`/orders/${id}`)).json()) as Order).status;

  it("marks the order paid when the customer pays its QR code", async () => {
    const order = await checkout(150_000);
    await t.provider.qris.pay(order.qris_history_id);
    expect(await statusOf(order.id)).toBe("paid");
  });

  it("marks the order expired when its QR code expires unpaid", async () => {
    const order = await checkout(80_000);
    await t.provider.clock.advance(15 * 60_000);
    await t.provider.webhooks.settled();
    expect(await statusOf(order.id)).toBe("expired");
  });

  it("applies a payment the provider delivers twice once", async () => {
    const order = await checkout(50_000);
    t.provider.webhooks.duplicateNext(1);
    await t.provider.qris.pay(order.qris_history_id);
    expect(t.provider.deliveries.map((d) => d.status)).toEqual([200, 200]);
    expect(await statusOf(order.id)).toBe("paid");
    const [{ count }] = await t.dataSource.query("SELECT count(*)::int AS count FROM kirimbayar_idempotency");
    expect(count).toBe(1);
  });

  // What the tests above rely on: each one starts from empty tables, with payment ids no earlier test saw.
  const seen: string[] = [];
  it.each([1, 2, 3])("run %i starts from empty tables and gets a new payment", async () => {
    expect(await t.dataSource.getRepository(Order).count()).toBe(0);
    const [{ count }] = await t.dataSource.query("SELECT count(*)::int AS count FROM kirimbayar_delivery_journal");
    expect(count).toBe(0);
    const order = await checkout(25_000);
    expect(seen).not.toContain(order.qris_history_id);
    seen.push(order.qris_history_id);
    await t.provider.qris.pay(order.qris_history_id);
    expect(await statusOf(order.id)).toBe("paid");
  });
});
