import { describe, expect, it } from "vitest";
import { api, fake, scriptedReceiver } from "./helpers.js";

async function paidQr(provider: ReturnType<typeof fake>, amount = 50_000) {
  const { data } = await (
    await api(provider).qris.post("/user/api/v1/qr/generate-qris", { qris_id: 1, amount, output_type: "string" })
  ).json();
  return data as { history_id: string; final_amount: number };
}

describe("webhook delivery", () => {
  it("retries at 1, 5 and 15 minutes after failures, then gives up", async () => {
    const receiver = scriptedReceiver([500, 500, 500, 500, 500]);
    const provider = fake({ webhooks: { qrisUrl: "https://shop.test/q", fetch: receiver.fetch } });
    const code = await paidQr(provider);
    await provider.qris.pay(code.history_id);
    await provider.clock.advance(60 * 60_000);
    const times = provider.deliveries.map((d) => (d.at.getTime() - provider.deliveries[0]!.at.getTime()) / 60_000);
    expect(times).toEqual([0, 1, 6, 21]);
    expect(provider.deliveries.map((d) => [d.attempt, d.status, d.acknowledged])).toEqual([
      [1, 500, false],
      [2, 500, false],
      [3, 500, false],
      [4, 500, false],
    ]);
    expect(new Set(provider.deliveries.map((d) => d.deliveryId)).size).toBe(1);
    expect(new Set(provider.deliveries.map((d) => d.body)).size).toBe(1);
  });

  it("stops retrying once a 200 with { success, message } arrives (third attempt)", async () => {
    const receiver = scriptedReceiver([500, 503, 200]);
    const provider = fake({ webhooks: { qrisUrl: "https://shop.test/q", fetch: receiver.fetch } });
    await provider.qris.pay((await paidQr(provider)).history_id);
    await provider.clock.advance(59_999);
    expect(receiver.received).toHaveLength(1);
    await provider.clock.advance(1);
    expect(receiver.received).toHaveLength(2);
    await provider.clock.advance(5 * 60_000);
    expect(receiver.received).toHaveLength(3);
    await provider.clock.advance(60 * 60_000);
    expect(receiver.received).toHaveLength(3);
    expect(provider.deliveries.at(-1)).toMatchObject({ attempt: 3, status: 200, acknowledged: true });
  });

  it("treats a 200 without { success, message }, a network error and a timeout as failures", async () => {
    const answers: Array<() => Promise<Response>> = [
      async () => new Response("OK", { status: 200 }),
      async () => {
        throw new TypeError("fetch failed");
      },
      () => new Promise<Response>(() => {}),
      async () => Response.json({ success: true, message: "done" }),
    ];
    let call = 0;
    const provider = fake({
      webhooks: { qrisUrl: "https://shop.test/q", timeoutMs: 50, fetch: () => (answers[call++] ?? answers[3]!)() },
    });
    await provider.qris.pay((await paidQr(provider)).history_id);
    await provider.clock.advance(25 * 60_000);
    expect(provider.deliveries.map((d) => d.acknowledged)).toEqual([false, false, false, true]);
    expect(provider.deliveries[1]?.error).toMatch(/fetch failed/);
    expect(provider.deliveries[2]?.error).toMatch(/abort|timeout/i);
  });

  it("reads the app's answer whole, however it comes: in chunks, multi-byte, a Response subclass or a used body", async () => {
    const answer = '{"success":true,"message":"diterima ✓ lunas"}';
    const bytes = new TextEncoder().encode(answer);
    // A Response whose text() says something else than its stream: what the app's text() says is what counts.
    const subclass = (text: string) => Object.assign(new Response(text), { text: async () => answer });
    const replies: (() => Response)[] = [
      // Split inside the three bytes of "✓": the decoder must see them together.
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              const cut = bytes.indexOf(0xe2) + 1;
              controller.enqueue(bytes.slice(0, cut));
              controller.enqueue(bytes.slice(cut));
              controller.close();
            },
          }),
        ),
      () => subclass("not what its text() says"),
      () => Response.json({ success: true, message: "ok" }, { status: 200 }),
    ];
    let next = 0;
    const provider = fake({
      webhooks: { qrisUrl: "https://shop.test/q", fetch: async () => (replies[next++] as () => Response)() },
    });
    for (let i = 0; i < replies.length; i++) await provider.qris.pay((await paidQr(provider, 50_000 + i)).history_id);
    expect(provider.deliveries.map((d) => [d.status, d.responseBody, d.acknowledged])).toEqual([
      [200, answer, true],
      [200, answer, true],
      [200, '{"success":true,"message":"ok"}', true],
    ]);

    const used = new Response(answer);
    await used.text();
    provider.webhooks.setFetch(async () => used);
    await provider.qris.pay((await paidQr(provider, 60_000)).history_id);
    const last = provider.deliveries.at(-1);
    expect(last?.status).toBeUndefined();
    expect(last?.error).toMatch(/^TypeError: /);
    expect(last?.acknowledged).toBe(false);
  });

  it("duplicates the next delivery on request", async () => {
    const receiver = scriptedReceiver();
    const provider = fake({ webhooks: { qrisUrl: "https://shop.test/q", fetch: receiver.fetch } });
    const code = await paidQr(provider);
    provider.webhooks.duplicateNext(2);
    await provider.qris.pay(code.history_id);
    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
    expect(provider.deliveries.map((d) => d.duplicate)).toEqual([false, true, true]);
  });

  it("holds deliveries and releases them out of order", async () => {
    const receiver = scriptedReceiver();
    const provider = fake({ webhooks: { ordersUrl: "https://shop.test/o", fetch: receiver.fetch } });
    const order = provider.orders.create();
    provider.webhooks.hold();
    await provider.orders.setStatus(order.orderNo, "Dijemput");
    await provider.orders.setStatus(order.orderNo, "Dikirim");
    await provider.orders.setStatus(order.orderNo, "Selesai");
    expect(provider.webhooks.heldCount).toBe(3);
    expect(receiver.received).toHaveLength(0);
    await provider.webhooks.release();
    expect(receiver.received.map((r) => JSON.parse(r.body).status)).toEqual(["Selesai", "Dikirim", "Dijemput"]);
  });

  it("signs payment callbacks in plain mode when configured, and redacts the key in the record", async () => {
    const receiver = scriptedReceiver();
    const provider = fake({ webhooks: { fetch: receiver.fetch, callbackAuth: "plain" } });
    const created = await (
      await api(provider).payment.post("/user/api/v1/user/payment/create", {
        order_id: "A1",
        payment_type: "bank_transfer",
        channel_code: "BNI",
        amount: 20_000,
        customer: { name: "A", email: "a@b.co", phone: "0812" },
        items: [{ name: "x", quantity: 1, price: 20_000 }],
        callback_url: "https://shop.test/p",
        callback_api_key: "callback-secret-123",
      })
    ).json();
    await provider.payments.pay(created.data.payment_id);
    expect(receiver.received[0]?.headers.get("x-callback-api-key")).toBe("callback-secret-123");
    expect(JSON.stringify(provider.deliveries)).not.toContain("callback-secret-123");
  });
});
