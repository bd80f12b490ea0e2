// The QR service's flat webhook body (FIELD-NOTES): the same typed events and the same idempotency key as the
// envelope form of the same payment.
import { describe, expect, it } from "vitest";
import { createWebhookReceiver, type QrisWebhookEvent, tokenVerifier } from "../src/webhooks.js";
import { bodyOf, qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

const TOKEN = "flat-token";
const quiet = { warn: () => {}, error: () => {} };
const deliver = (body: unknown) =>
  webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: typeof body === "string" ? body : JSON.stringify(body) });

const flatPaid = (overrides: Record<string, unknown> = {}) => ({
  qris_history_id: 771_204,
  transaction_id: "TRX-20260501-000123",
  payment_status: "paid",
  amount: 100_001,
  paid_amount: 100_001,
  paid_at: "2026-05-01 10:05:00",
  expired_at: "2026-05-01 10:15:00",
  ...overrides,
});

function receiver() {
  const seen: { name: string; event: QrisWebhookEvent; key: string; any: boolean }[] = [];
  const qris = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
    logger: quiet,
  });
  qris.on("payment.success", (event, ctx) => {
    seen.push({ name: "success", event, key: ctx.idempotencyKey, any: false });
  });
  qris.on("payment.expired", (event, ctx) => {
    seen.push({ name: "expired", event, key: ctx.idempotencyKey, any: false });
  });
  return { qris, seen };
}

describe("flat QR webhook body", () => {
  it("is a payment.success for paid, typed like the envelope's, with the time and amounts kept", async () => {
    const { qris, seen } = receiver();
    const response = await qris.handle(deliver(flatPaid()));
    expect(response.status).toBe(200);
    expect(seen).toHaveLength(1);
    const [first] = seen;
    expect(first?.name).toBe("success");
    expect(first?.event).toMatchObject({
      event: "payment.success",
      timestamp: "2026-05-01 10:05:00",
      format: "flat",
      data: {
        qris_history_id: 771_204,
        amount: 100_001,
        paid_amount: 100_001,
        status: "paid",
        transaction_id: "TRX-20260501-000123",
      },
    });
    expect(first?.key).toBe("qris:payment.success:771204");
  });

  it("is a payment.expired for expired", async () => {
    const { qris, seen } = receiver();
    await qris.handle(deliver(flatPaid({ payment_status: "EXPIRED", paid_at: null, paid_amount: 0 })));
    expect(seen.map((s) => [s.name, s.event.timestamp])).toEqual([["expired", "2026-05-01 10:15:00"]]);
  });

  it("dedupes against the envelope form of the same payment, in both orders", async () => {
    const first = receiver();
    await first.qris.handle(deliver(qrisSuccess({ qris_history_id: 771_204 })));
    const flatAfter = await first.qris.handle(deliver(flatPaid()));
    expect(bodyOf(flatAfter).message).toMatch(/Duplicate of an event already processed/);
    expect(first.seen).toHaveLength(1);

    const second = receiver();
    await second.qris.handle(deliver(flatPaid({ qris_history_id: "771204" })));
    const envelopeAfter = await second.qris.handle(deliver(qrisSuccess({ qris_history_id: 771_204 })));
    expect(bodyOf(envelopeAfter).message).toMatch(/Duplicate of an event already processed/);
    expect(second.seen).toHaveLength(1);
  });

  it("accepts history_id for the id, as the envelope does", async () => {
    const { qris, seen } = receiver();
    const { qris_history_id: _id, ...rest } = flatPaid();
    await qris.handle(deliver({ ...rest, history_id: "h-55" }));
    expect(seen[0]?.event.data).toMatchObject({ qris_history_id: "h-55", history_id: "h-55" });
    expect(seen[0]?.key).toBe("qris:payment.success:h-55");
  });

  it("hands an unknown status to onAny as payment.<status>, never a 400", async () => {
    const { qris, seen } = receiver();
    const any: string[] = [];
    qris.onAny((event) => {
      any.push(String(event.event));
    });
    const response = await qris.handle(deliver(flatPaid({ payment_status: "refunded" })));
    expect(response.status).toBe(200);
    expect(any).toEqual(["payment.refunded"]);
    expect(seen).toEqual([]);
  });

  it("answers 400 and runs nothing when a paid body lacks its id or amount", async () => {
    const { qris, seen } = receiver();
    const { qris_history_id: _id, ...noId } = flatPaid();
    const missingId = await qris.handle(deliver(noId));
    expect(missingId.status).toBe(400);
    expect(bodyOf(missingId).message).toMatch(/qris_history_id/);
    const { amount: _amount, ...noAmount } = flatPaid();
    expect((await qris.handle(deliver(noAmount))).status).toBe(400);
    expect(seen).toEqual([]);
  });
});
