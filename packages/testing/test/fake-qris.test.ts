import { describe, expect, it } from "vitest";
import { FakeProviderError } from "../src/index.js";
import { api, fake, scriptedReceiver } from "./helpers.js";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);

async function generate(
  provider: ReturnType<typeof fake>,
  body: Record<string, unknown>,
  path = "/user/api/v1/qr/generate-qris",
) {
  return api(provider).qris.post(path, body);
}

describe("fake QR service (raw HTTP semantics)", () => {
  it("generates on the spec path and on the qrisly path, adding a unique code to the charged amount", async () => {
    const provider = fake();
    const first = await (await generate(provider, { qris_id: 1, amount: 100_000, output_type: "string" })).json();
    expect(first.success).toBe(true);
    expect(first.data.payment_status).toBe("unpaid");
    expect(first.data.original_amount).toBe(100_000);
    expect(first.data.final_amount).toBeGreaterThan(100_000);
    expect(first.data.final_amount).toBeLessThan(101_000);
    expect(first.data.expiry_time).toBe("2026-01-15 10:15:00");
    expect(first.data.qris_string).toContain(
      `54${String(first.data.final_amount).length.toString().padStart(2, "0")}${first.data.final_amount}`,
    );
    const second = await (
      await generate(
        provider,
        { qris_id: 1, amount: 100_000, output_type: "string" },
        "/user/api/v1/qrisly/generate-qris",
      )
    ).json();
    expect(second.data.final_amount).not.toBe(first.data.final_amount);
    const exact = await (
      await generate(provider, { qris_id: 1, amount: 100_000, output_type: "image", unique_amount: false })
    ).json();
    expect(exact.data.final_amount).toBe(100_000);
    expect(exact.data.qris_image).toMatch(/^data:image\/png;base64,/);
  });

  it("rejects amounts outside 1,000–100,000,000, a bad output_type and an unknown qris_id", async () => {
    const provider = fake();
    const low = await generate(provider, { qris_id: 1, amount: 999, output_type: "string" });
    expect(low.status).toBe(422);
    expect(await low.json()).toMatchObject({ success: false, data: null });
    expect((await generate(provider, { qris_id: 1, amount: 100_000_001, output_type: "string" })).status).toBe(422);
    expect((await generate(provider, { qris_id: 1, amount: 5000, output_type: "svg" })).status).toBe(422);
    expect((await generate(provider, { qris_id: "1", amount: 5000, output_type: "string" })).status).toBe(422);
    expect((await generate(provider, { qris_id: 42, amount: 5000, output_type: "string" })).status).toBe(404);
  });

  it("status reflects payment, and a paid code stays paid (cannot expire or be paid twice)", async () => {
    const provider = fake();
    const { data } = await (await generate(provider, { qris_id: 1, amount: 50_000, output_type: "string" })).json();
    const path = `/user/api/v1/qrisly/payment-status/${data.history_id}`;
    expect((await (await api(provider).qris.get(path)).json()).data.payment_status).toBe("unpaid");
    await provider.qris.pay(data.history_id, { paymentProvider: "OVO" });
    const paid = (await (await api(provider).qris.get(path)).json()).data;
    expect(paid).toMatchObject({
      payment_status: "paid",
      final_amount: data.final_amount,
      paid_at: "2026-01-15T03:00:00Z",
    });
    await expect(provider.qris.pay(data.history_id)).rejects.toThrow(FakeProviderError);
    await provider.clock.advance(60 * 60_000);
    expect((await (await api(provider).qris.get(path)).json()).data.payment_status).toBe("paid");
    expect((await api(provider).qris.get("/user/api/v1/qrisly/payment-status/unknown")).status).toBe(404);
  });

  it("sends payment.success with the charged amount and payment.expired after 15 minutes", async () => {
    const receiver = scriptedReceiver();
    const provider = fake({
      webhooks: { qrisUrl: "https://shop.test/webhooks/qris?token=t0k", fetch: receiver.fetch },
    });
    const paidCode = (await (await generate(provider, { qris_id: 1, amount: 75_000, output_type: "string" })).json())
      .data;
    const lostCode = (await (await generate(provider, { qris_id: 1, amount: 20_000, output_type: "string" })).json())
      .data;
    await provider.qris.pay(paidCode.history_id);
    const success = JSON.parse(receiver.received[0]?.body ?? "");
    expect(success).toMatchObject({
      event: "payment.success",
      data: {
        qris_history_id: paidCode.history_id,
        amount: paidCode.final_amount,
        original_amount: 75_000,
        status: "paid",
        payment_method: "QRIS",
      },
    });
    expect(success.data.qris_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(receiver.received[0]?.url).toBe("https://shop.test/webhooks/qris?token=t0k");
    await provider.clock.advance(15 * 60_000);
    const expired = JSON.parse(receiver.received[1]?.body ?? "");
    expect(expired).toMatchObject({
      event: "payment.expired",
      timestamp: "2026-01-15T03:15:00Z",
      data: { qris_history_id: lostCode.history_id, status: "expired", expired_at: "2026-01-15T03:15:00Z" },
    });
    expect(provider.deliveries.map((d) => d.url)).toEqual([
      "https://shop.test/webhooks/qris?token=%5Bredacted%5D",
      "https://shop.test/webhooks/qris?token=%5Bredacted%5D",
    ]);
  });

  it("uploads a QRIS image (multipart) and generates from the new qris_id", async () => {
    const provider = fake();
    const form = new FormData();
    form.set("name", "Kasir 2");
    form.set("qris_image", new Blob([PNG], { type: "image/png" }), "qris.png");
    const upload = await api(provider).call("/user/api/v1/qrisly/upload-qris", {
      method: "POST",
      headers: { "X-API-Key": provider.apiKeys.qris[0] ?? "" },
      body: form,
    });
    const uploaded = await upload.json();
    expect(uploaded).toMatchObject({ success: true, data: { qris_id: 2, name: "Kasir 2" } });
    expect((await generate(provider, { qris_id: 2, amount: 5000, output_type: "string" })).status).toBe(200);
    const text = new FormData();
    text.set("name", "x");
    text.set("qris_image", new Blob(["not an image"], { type: "image/png" }), "q.png");
    const rejected = await api(provider).call("/user/api/v1/qrisly/upload-qris", {
      method: "POST",
      headers: { "X-API-Key": provider.apiKeys.qris[0] ?? "" },
      body: text,
    });
    expect(rejected.status).toBe(422);
  });

  it("keeps QR and payment keys apart: a payment key is refused by the QR service", async () => {
    const provider = fake();
    const response = await api(provider).call("/user/api/v1/qr/generate-qris", {
      method: "POST",
      headers: { "X-API-Key": provider.apiKeys.payment[0] ?? "", "content-type": "application/json" },
      body: JSON.stringify({ qris_id: 1, amount: 5000, output_type: "string" }),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ success: false, data: null });
  });
});
