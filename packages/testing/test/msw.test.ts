// @kirimbayar/testing/msw with msw's own setupServer: clients using the global fetch reach the stateful fake.
import { QrisClient, ShippingClient } from "@kirimbayar/core";
import { createWebhookReceiver, tokenVerifier } from "@kirimbayar/core/webhooks";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createFakeProvider } from "../src/index.js";
import { createFakeProviderHandlers, fakeProviderHandlers } from "../src/msw.js";

const BASE_URL = "https://api.kirimbayar-msw.test";
const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

describe("fakeProviderHandlers", () => {
  it("answers a client on the global fetch from the same stateful fake, webhooks included", async () => {
    const paid: string[] = [];
    const receiver = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: ["msw-token"], in: "query" })],
    }).on("payment.success", (event) => {
      paid.push(String(event.data.qris_history_id));
    });
    const provider = createFakeProvider({
      webhooks: { qrisUrl: "https://shop.test/webhooks/qris?token=msw-token", fetch: (r) => receiver.fetch(r) },
    });
    server.use(...fakeProviderHandlers(provider, { baseUrl: BASE_URL }));
    const qris = new QrisClient({ apiKey: provider.apiKeys.qris[0] ?? "", baseUrl: BASE_URL });
    const { data } = await qris.generateQris({ qris_id: 1, amount: 25_000, output_type: "string" });
    expect(provider.qris.get(String(data.history_id))?.status).toBe("unpaid");
    await provider.qris.pay(String(data.history_id));
    expect(paid).toEqual([String(data.history_id)]);
    expect((await qris.getQrisPaymentStatus(String(data.history_id))).data.payment_status).toBe("paid");
  });

  it("keeps the fake's validation and faults, and leaves other origins to msw", async () => {
    const { provider, handlers } = createFakeProviderHandlers({ baseUrl: `${BASE_URL}/v1/` });
    server.use(...handlers);
    const shipping = new ShippingClient({ apiKey: "wrong-key", baseUrl: `${BASE_URL}/v1`, maxRetries: 0 });
    await expect(shipping.searchDomesticDestinations({ search: "jakarta" })).rejects.toMatchObject({ status: 401 });
    expect(provider.requests.at(-1)?.status).toBe(401);
    await expect(fetch("https://elsewhere.test/anything")).rejects.toThrow();
  });
});
