import { QrisClient } from "@kirimbayar/core";
import { describe, expect, it } from "vitest";
import { createFakeProvider } from "../src/index.js";

// The fake's request log: on by default (tests read it), off for load tests and long-running fakes.
describe("fake provider request log", () => {
  const generateTwice = async (provider: ReturnType<typeof createFakeProvider>) => {
    const qris = new QrisClient({
      apiKey: provider.apiKeys.qris[0] ?? "",
      baseUrl: provider.baseUrl,
      fetch: provider.fetch,
    });
    const first = await qris.generateQris({ qris_id: 1, amount: 10_000, output_type: "string" });
    await expect(qris.getQrisPaymentStatus(String(first.data.history_id))).resolves.toMatchObject({
      data: { payment_status: "unpaid" },
    });
    return first.data.history_id;
  };

  it("records every request by default", async () => {
    const provider = createFakeProvider({ seed: "request-log-default" });
    await generateTwice(provider);
    expect(provider.requests.map((r) => [r.method, r.service, r.status])).toEqual([
      ["POST", "qris", 200],
      ["GET", "qris", 200],
    ]);
  });

  it("keeps no log with recordRequests: false, and still answers every request", async () => {
    const provider = createFakeProvider({ seed: "request-log-off", recordRequests: false });
    const historyId = await generateTwice(provider);
    expect(provider.qris.get(String(historyId))?.status).toBe("unpaid");
    expect(provider.requests).toEqual([]);
    // A reset keeps the setting.
    provider.reset();
    await generateTwice(provider);
    expect(provider.requests).toEqual([]);
  });
});
