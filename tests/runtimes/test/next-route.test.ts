// The Next.js App Router snippet (next-route/app/webhooks/qris/route.ts) as Next calls it: the module's POST export
// with a real Web Request. Next.js itself is not installed: a route handler is only that function.
import { createFixtures, toWebhookRequest } from "@kirimbayar/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const TOKEN = "next-route-token-2026";
const fixtures = createFixtures({ seed: "next-route" });

describe("Next.js route handler: export const POST = (req: Request) => receiver.fetch(req)", () => {
  let POST: (req: Request) => Promise<Response>;
  let paidOrders: { historyId: string; amount: number }[];
  const paid = fixtures.qrisPaymentSuccess({ amount: 120_045 });
  const delivery = (token: string) =>
    toWebhookRequest(paid, { url: "https://shop.example/webhooks/qris", token }).toRequest();
  const answer = async (response: Response) => ({ status: response.status, body: await response.json() });

  beforeAll(async () => {
    // The route reads its token when Next first loads the module.
    vi.stubEnv("QRIS_WEBHOOK_TOKEN", TOKEN);
    ({ POST } = await import("../next-route/app/webhooks/qris/route.ts"));
    ({ paidOrders } = await import("../next-route/lib/orders.ts"));
  });
  afterAll(() => {
    vi.unstubAllEnvs();
  });

  it("takes a verified payment.success: 200, and the handler ran", async () => {
    expect(await answer(await POST(delivery(TOKEN)))).toEqual({
      status: 200,
      body: { success: true, message: "Webhook processed" },
    });
    expect(paidOrders).toEqual([{ historyId: String(paid.data.qris_history_id), amount: 120_045 }]);
  });

  it("answers the same delivery again 200 as a duplicate, without running the handler again", async () => {
    expect(await answer(await POST(delivery(TOKEN)))).toEqual({
      status: 200,
      body: { success: true, message: "Duplicate of an event already processed" },
    });
    expect(paidOrders).toHaveLength(1);
  });

  it("refuses a forged token with 401", async () => {
    const forged = fixtures.qrisPaymentSuccess();
    const response = await POST(
      toWebhookRequest(forged, { url: "https://shop.example/webhooks/qris", token: "guessed" }).toRequest(),
    );
    expect(await answer(response)).toEqual({ status: 401, body: expect.objectContaining({ success: false }) });
    expect(paidOrders).toHaveLength(1);
  });
});
