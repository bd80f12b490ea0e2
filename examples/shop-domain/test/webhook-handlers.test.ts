import type { OrderStatusWebhook, QrisPaymentSuccessEvent } from "@kirimbayar/core/webhooks";
import { fixtures } from "@kirimbayar/testing";
import { beforeEach, describe, expect, it } from "vitest";
import type { Order } from "../src/order.js";
import { InMemoryOrderRepository } from "../src/order-repository.js";
import { ShopWebhookHandlers } from "../src/webhook-handlers.js";
import { orderDraft } from "./support/order-draft.js";

const NOW = new Date("2026-03-02T03:00:00Z");

const paid = (amount: number, historyId = "qr-1"): QrisPaymentSuccessEvent =>
  fixtures.qrisPaymentSuccess({
    qris_history_id: historyId,
    amount,
    original_amount: 100_000,
  }) as QrisPaymentSuccessEvent;
const status = (orderNo: string, value: string): OrderStatusWebhook => ({
  order_no: orderNo,
  cnote: "JP001",
  status: value,
});

describe("ShopWebhookHandlers", () => {
  let orders: InMemoryOrderRepository;
  let handlers: ShopWebhookHandlers;
  let order: Order;

  beforeEach(async () => {
    orders = new InMemoryOrderRepository();
    handlers = new ShopWebhookHandlers(orders, () => NOW);
    order = await orders.create(orderDraft());
  });

  const current = async () => (await orders.get(order.id))!;
  /** Adds a pending virtual-account payment `KPAY-9` of Rp100.000 to the order. */
  const addPendingVa = () =>
    orders.update(order.id, (o) => {
      o.payments.push({
        method: "va",
        state: "pending",
        payment_id: "KPAY-9",
        bank_code: "BCA",
        va_number: "1",
        amount: 100_000,
        expires_at: undefined,
      });
    });

  it("reconciles against final_amount (with the unique code), not the order total", async () => {
    await handlers.qrisPaid(paid(100_000));
    expect((await current()).status).toBe("payment_review");
    expect((await current()).events.at(-1)).toEqual({
      at: NOW.toISOString(),
      source: "qris",
      type: "payment.mismatch",
      detail: "QR qr-1 paid Rp100.000 but Rp100.137 was quoted",
    });

    const other = await orders.create(orderDraft());
    await orders.update(other.id, (o) => {
      if (o.payments[0]?.method === "qris") o.payments[0].history_id = "qr-2";
    });
    await handlers.qrisPaid(paid(100_137, "qr-2"));
    expect((await orders.get(other.id))?.status).toBe("paid");
  });

  it("flags a second payment of a paid order for a refund instead of changing it", async () => {
    await handlers.qrisPaid(paid(100_137));
    await addPendingVa();
    await handlers.paymentCallback({ payment_id: "KPAY-9", status: "PAID", amount: 100_000 });
    const after = await current();
    expect(after.status).toBe("paid");
    expect(after.events.at(-1)?.type).toBe("payment.extra");
    expect(after.payments.map((p) => p.state)).toEqual(["paid", "paid"]);
  });

  it("finds the order of a callback that carries only the order id", async () => {
    await addPendingVa();
    await handlers.paymentCallback({ order_id: order.id, status: "PAID", amount: 100_000 });
    expect((await current()).status).toBe("paid");
  });

  it("expires an order only when none of its payments is still open", async () => {
    await addPendingVa();
    await handlers.qrisExpired({
      event: "payment.expired",
      timestamp: NOW.toISOString(),
      data: { qris_history_id: "qr-1" },
    });
    expect((await current()).status).toBe("awaiting_payment");
    await handlers.paymentCallback({ payment_id: "KPAY-9", status: "EXPIRED" });
    expect((await current()).status).toBe("expired");
  });

  it("moves delivery forward only, whatever order the shipping updates arrive in", async () => {
    await handlers.qrisPaid(paid(100_137));
    await handlers.orderStatus(status(order.id, "Selesai"));
    await handlers.orderStatus(status(order.id, "Dikirim"));
    const after = await current();
    expect(after.status).toBe("delivered");
    expect(after.cnote).toBe("JP001");
    expect(after.events.filter((e) => e.type === "order.status").map((e) => e.detail)).toEqual([
      "Selesai (waybill JP001)",
      "Dikirim (waybill JP001)",
    ]);
  });

  it("does not ship an unpaid order but records the courier's report for a person to check", async () => {
    await handlers.orderStatus(status(order.id, "Dikirim"));
    const after = await current();
    expect(after.status).toBe("awaiting_payment");
    expect(after.events.map((e) => e.type)).toEqual(["order.status", "order.attention"]);
  });

  it("keeps webhooks about unknown orders aside and acknowledges them", async () => {
    await handlers.qrisPaid(paid(5_000, "qr-unknown"));
    await handlers.orderStatus(status("ORD-424242", "Dikirim"));
    await handlers.paymentCallback({ order_id: "ORD-777", status: "PAID", amount: 10_000 });
    expect(handlers.unmatched.map((u) => [u.source, u.reference])).toEqual([
      ["qris", "qr-unknown"],
      ["orders", "ORD-424242"],
      ["payment", "ORD-777"],
    ]);
    expect((await current()).events).toEqual([]);
  });
});
