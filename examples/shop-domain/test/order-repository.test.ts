import { describe, expect, it } from "vitest";
import type { Order } from "../src/order.js";
import { InMemoryOrderRepository } from "../src/order-repository.js";

const draft: Omit<Order, "id"> = {
  status: "awaiting_payment",
  customer: { name: "Sari", email: "sari@example.test", phone: "081234567890" },
  items: [{ name: "Kopi Gayo 250 g", quantity: 2, price: 85_000, weight: 250 }],
  subtotal: 170_000,
  shipping: {
    courier_code: "jne",
    courier_name: "JNE",
    service: "REG",
    cost: 18_000,
    etd: { min: 2, max: 3, unit: "day", raw: "2-3 day" },
    destination_id: 1,
  },
  total: 188_000,
  weight: 500,
  payments: [
    {
      method: "qris",
      state: "pending",
      history_id: "h-1",
      qris_string: "000201",
      original_amount: 188_000,
      final_amount: 188_001,
      expires_at: undefined,
    },
  ],
  cnote: undefined,
  created_at: "2026-01-01T00:00:00.000Z",
  events: [],
};

describe("InMemoryOrderRepository", () => {
  it("numbers orders and finds them by id and by payment reference", async () => {
    const orders = new InMemoryOrderRepository();
    const first = await orders.create(draft);
    const second = await orders.create(draft);
    expect([first.id, second.id]).toEqual(["ORD-000001", "ORD-000002"]);
    expect((await orders.get("ORD-000002"))?.total).toBe(188_000);
    expect((await orders.findByPaymentReference("h-1"))?.id).toBe("ORD-000001");
    expect(await orders.findByPaymentReference("nope")).toBeUndefined();
    expect(await orders.get("ORD-999999")).toBeUndefined();
  });

  it("hands out copies, so only update changes a stored order, and a throwing change stores nothing", async () => {
    const orders = new InMemoryOrderRepository();
    const order = await orders.create(draft);
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
});
