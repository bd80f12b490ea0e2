import "reflect-metadata";
import type { Order } from "@kirimbayar/example-shop-domain";
import { loadShopConfig } from "@kirimbayar/example-shop-domain";
import { createFakeProvider, fixtures } from "@kirimbayar/testing";
import type { INestApplication } from "@nestjs/common";
import { Test } from "@nestjs/testing";
import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { fakeProviderEnv } from "../../shop-domain/test/support/shop-flow.js";
import { ShopModule } from "../src/shop.module.js";

// The NestJS-specific pitfall: webhook signatures need the raw body, which Nest keeps only with `rawBody: true`.
// Built with @nestjs/testing, the clients talking to the fake provider in process (no sockets to the provider).
describe("nestjs shop with @nestjs/testing", () => {
  let app: INestApplication | undefined;

  afterEach(async () => {
    await app?.close();
  });

  async function boot(rawBody: boolean) {
    const provider = createFakeProvider();
    const env = fakeProviderEnv(provider, provider.baseUrl);
    const config = loadShopConfig(env);
    const moduleRef = await Test.createTestingModule({
      imports: [ShopModule.forRoot(config, { fetch: provider.fetch })],
    }).compile();
    app = moduleRef.createNestApplication({ rawBody, logger: false });
    await app.init();
    const braga = await request(app.getHttpServer()).get("/shipping/destinations?search=braga");
    const created = await request(app.getHttpServer())
      .post("/orders")
      .send({
        customer: { name: "Budi", email: "budi@example.test", phone: "081298765432" },
        items: [{ name: "Keripik Tempe", quantity: 3, price: 15_000, weight: 200 }],
        destination_id: braga.body.data[0].id,
        courier: "jne",
        service: "REG",
      });
    expect(created.status).toBe(201);
    const order = created.body.data.order as Order;
    const payment = order.payments[0];
    if (payment?.method !== "qris") throw new Error("expected a QRIS payment");
    const event = fixtures.qrisPaymentSuccess({ qris_history_id: payment.history_id, amount: payment.final_amount });
    const delivery = await request(app.getHttpServer())
      .post(`/webhooks/qris?token=${env.KIRIMBAYAR_WEBHOOK_SECRET}`)
      .set("content-type", "application/json")
      .send(JSON.stringify(event));
    const after = await request(app.getHttpServer()).get(`/orders/${order.id}`);
    return { delivery, order: after.body.data as Order };
  }

  it("marks the order paid when the app keeps the raw body", async () => {
    const { delivery, order } = await boot(true);
    expect(delivery.status).toBe(200);
    expect(delivery.body).toEqual({ success: true, message: expect.any(String) });
    expect(order.status).toBe("paid");
  });

  it("refuses the webhook with a 5xx naming the fix when rawBody is off, and leaves the order unpaid", async () => {
    const { delivery, order } = await boot(false);
    expect(delivery.status).toBeGreaterThanOrEqual(500);
    expect(JSON.stringify(delivery.body)).toMatch(/rawBody/);
    expect(order.status).toBe("awaiting_payment");
  });
});
