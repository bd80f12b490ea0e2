import { describe, expect, it } from "vitest";
import { InMemoryOrderRepository } from "../src/order-repository.js";
import { pendingPaymentReferences } from "../src/reconciliation.js";
import { orderDraft } from "./support/order-draft.js";

describe("InMemoryOrderRepository", () => {
  it("numbers orders and finds them by id and by payment reference", async () => {
    const orders = new InMemoryOrderRepository();
    const first = await orders.create(orderDraft());
    const second = await orders.create(orderDraft());
    expect([first.id, second.id]).toEqual(["ORD-000001", "ORD-000002"]);
    expect((await orders.get("ORD-000002"))?.total).toBe(100_000);
    expect((await orders.findByPaymentReference("qr-1"))?.id).toBe("ORD-000001");
    expect(await orders.findByPaymentReference("nope")).toBeUndefined();
    expect(await orders.get("ORD-999999")).toBeUndefined();
  });

  it("hands out copies, so only update changes a stored order, and a throwing change stores nothing", async () => {
    const orders = new InMemoryOrderRepository();
    const order = await orders.create(orderDraft());
    order.status = "paid";
    expect((await orders.get(order.id))?.status).toBe("awaiting_payment");

    const updated = await orders.update(order.id, (o) => {
      o.status = "paid";
    });
    expect(updated?.status).toBe("paid");
    await expect(
      orders.update(order.id, (o) => {
        o.status = "expired";
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect((await orders.get(order.id))?.status).toBe("paid");
    expect(await orders.update("ORD-999999", () => {})).toBeUndefined();
  });

  it("lists the orders still waiting for a payment, as the reconciler's references", async () => {
    const orders = new InMemoryOrderRepository();
    const waiting = await orders.create(orderDraft());
    const paid = await orders.create(orderDraft());
    await orders.update(paid.id, (o) => {
      for (const payment of o.payments) payment.state = "paid";
    });
    expect((await orders.listAwaitingPayment()).map((o) => o.id)).toEqual([waiting.id]);
    const [qris] = waiting.payments;
    expect(await pendingPaymentReferences(orders)).toEqual([
      { source: "qris", history_id: "qr-1", amount: qris?.method === "qris" ? qris.final_amount : -1 },
    ]);
  });
});
