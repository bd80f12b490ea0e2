import type { Order } from "../../src/order.js";

/**
 * An order as the repository receives it (no id yet): Rp100.000 awaiting its QR code `qr-1`, quoted at Rp100.137
 * (the total plus the unique code). A new copy each call, so a test can change it freely.
 *
 * @example
 * const order = await new InMemoryOrderRepository().create(orderDraft());
 */
export function orderDraft(): Omit<Order, "id"> {
  return {
    status: "awaiting_payment",
    customer: { name: "Sari", email: "sari@example.test", phone: "081234567890" },
    items: [{ name: "Kopi Gayo 250 g", quantity: 1, price: 85_000, weight: 250 }],
    subtotal: 85_000,
    shipping: {
      courier_code: "jne",
      courier_name: "JNE",
      service: "REG",
      cost: 15_000,
      etd: { min: 2, max: 3, unit: "day", raw: "2-3 day" },
      destination_id: 230_201,
    },
    total: 100_000,
    weight: 250,
    payments: [
      {
        method: "qris",
        state: "pending",
        history_id: "qr-1",
        qris_string: "000201",
        original_amount: 100_000,
        final_amount: 100_137,
        expires_at: undefined,
      },
    ],
    cnote: undefined,
    created_at: "2026-03-02T03:00:00.000Z",
    events: [],
  };
}
