import "reflect-metadata";
import { tokenVerifier, type WebhookContext } from "@kirimbayar/core/webhooks";
import { Injectable } from "@nestjs/common";
import { FastifyAdapter } from "@nestjs/platform-fastify";
import { Test } from "@nestjs/testing";
import { describe, expect, it } from "vitest";
import { KirimbayarModule, KirimbayarReconciler, OnQrisEvent } from "../src/index.js";

const TOKEN = "reconcile-token";
const found: { id: string; origin: string }[] = [];

@Injectable()
class PaymentEvents {
  @OnQrisEvent("payment.success")
  paid(event: { data: { qris_history_id: string | number } }, ctx: WebhookContext) {
    found.push({ id: String(event.data.qris_history_id), origin: ctx.origin });
  }
}

/**
 * A QR payment the provider reports paid on its status endpoint, while none of its webhooks reached the app: the
 * client's `fetch` answers only that endpoint.
 */
async function missedPayment() {
  const historyId = `h-${Math.random().toString(36).slice(2)}`;
  const fetch = async (input: string | URL | Request) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!url.pathname.endsWith(`/payment-status/${historyId}`)) return new Response("not found", { status: 404 });
    const body = {
      success: true,
      message: "ok",
      data: { history_id: historyId, payment_status: "paid", amount: 40_017 },
    };
    return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
  };
  const clientOptions = { apiKey: "qris-api-key-123", baseUrl: "https://api.example.test", fetch };
  return { clientOptions, historyId, finalAmount: 40_017 };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("KirimbayarReconciler", () => {
  it.each(["express", "fastify"] as const)(
    "starts with the app on %s, applies a payment whose webhooks all failed through the decorated handler, and stops on close",
    async (platform) => {
      found.length = 0;
      const { clientOptions, historyId, finalAmount } = await missedPayment();
      let asked = 0;
      const moduleRef = await Test.createTestingModule({
        imports: [
          KirimbayarModule.forRoot({
            clients: { qris: clientOptions },
            webhooks: { qris: { verify: [tokenVerifier({ secrets: [TOKEN], in: "query" })] } },
            reconcile: {
              every: 20,
              pending: () => {
                asked++;
                return [{ source: "qris", history_id: historyId, amount: finalAmount }];
              },
            },
            reconcileOptions: { minIntervalPerIdMs: 1 },
          }),
        ],
        providers: [PaymentEvents],
      }).compile();
      const app =
        platform === "express"
          ? moduleRef.createNestApplication({ rawBody: true, logger: false })
          : moduleRef.createNestApplication(new FastifyAdapter(), { logger: false });
      await app.listen(0, "127.0.0.1");
      const deadline = Date.now() + 5_000;
      while (found.length === 0 && Date.now() < deadline) await sleep(10);
      expect(found).toEqual([{ id: historyId, origin: "reconciliation" }]);
      await app.close();
      const askedAtClose = asked;
      await sleep(80);
      expect(asked).toBe(askedAtClose);
      expect(found).toHaveLength(1);
    },
  );

  it("is injectable for a reconcile() of your own, and refuses a source it was not configured for", async () => {
    found.length = 0;
    const { clientOptions, historyId } = await missedPayment();
    const moduleRef = await Test.createTestingModule({
      imports: [
        KirimbayarModule.forRoot({
          clients: { qris: clientOptions },
          webhooks: { qris: { verify: [tokenVerifier({ secrets: [TOKEN], in: "query" })] } },
        }),
      ],
      providers: [PaymentEvents],
    }).compile();
    const app = moduleRef.createNestApplication({ rawBody: true, logger: false });
    await app.init();
    try {
      const reconciler = app.get(KirimbayarReconciler);
      const [result] = await reconciler.reconcile([{ source: "qris", history_id: historyId, amount: 40_000 }]);
      expect(result?.outcome).toBe("applied");
      await expect(reconciler.reconcile([{ source: "payment", payment_id: "P-1" }])).rejects.toThrow(
        /no payment receiver and client/,
      );
    } finally {
      await app.close();
    }
  });
});
