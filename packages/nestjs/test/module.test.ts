import "reflect-metadata";
import { createHmac } from "node:crypto";
import { ConfigurationError, QrisClient, ShippingClient } from "@kirimbayar/core";
import { callbackKeyVerifier, tokenVerifier, WebhookConfigurationError } from "@kirimbayar/core/webhooks";
import { Inject, Injectable, Module } from "@nestjs/common";
import { Test } from "@nestjs/testing";
import request from "supertest";
import { afterEach, describe, expect, it, vi } from "vitest";
import { KirimbayarModule, OnOrderStatus, OnPaymentCallback, OnQrisEvent } from "../src/index.js";

const callbackKey = "callback-key-for-tests";
const callback = '{"payment_id":"KPAY-1","status":"PAID","amount":150000}';
const signature = createHmac("sha256", callbackKey).update(callback).digest("hex");
const calls = vi.fn();
const apiOptions = { apiKey: "secret-api-key-123", baseUrl: "https://api.example.test" };

@Injectable()
class PaymentHandlers {
  @OnPaymentCallback()
  paid(event: unknown) {
    calls("payment", event);
  }
}

@Injectable()
class ShippingHandlers {
  @OnOrderStatus("Dikirim")
  shipped(event: { order_no: string }) {
    calls("shipped", event.order_no);
  }
}

const payment = { verify: [callbackKeyVerifier({ secrets: [callbackKey] })], logger: {} };
const orders = { verify: [tokenVerifier({ secrets: ["t0ken"], in: "query", name: "token" })], logger: {} };

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
  calls.mockReset();
});

async function boot(imports: unknown[], providers: unknown[], rawBody = true) {
  const moduleRef = await Test.createTestingModule({
    imports: imports as never[],
    providers: providers as never[],
  }).compile();
  const app = moduleRef.createNestApplication({ rawBody, logger: false });
  close = () => app.close();
  await app.init();
  return { app, server: app.getHttpServer() };
}

/** Posts a payment callback (signed with the test key unless `signedWith` says otherwise) to `path`. */
const postCallback = (server: Parameters<typeof request>[0], path: string, body = callback, signedWith = signature) =>
  request(server).post(path).set("content-type", "application/json").set("x-callback-api-key", signedWith).send(body);

describe("KirimbayarModule webhooks", () => {
  it("dispatches to decorated provider methods (one order status only)", async () => {
    const { server } = await boot(
      [KirimbayarModule.forRoot({ webhooks: { payment, orders } })],
      [PaymentHandlers, ShippingHandlers],
    );
    const paid = await postCallback(server, "/webhooks/payment");
    expect(paid.status).toBe(200);
    const order = (status: string) =>
      request(server)
        .post("/webhooks/orders?token=t0ken")
        .type("json")
        .send(JSON.stringify({ order_no: `ORD-${status}`, cnote: "JP1", status }));
    expect((await order("Dikirim")).status).toBe(200);
    expect((await order("Selesai")).status).toBe(200);
    expect(calls.mock.calls).toEqual([
      ["payment", expect.objectContaining({ payment_id: "KPAY-1" })],
      ["shipped", "ORD-Dikirim"],
    ]);
  });

  it("answers 500 naming { rawBody: true } when the app was created without it", async () => {
    const { server } = await boot([KirimbayarModule.forRoot({ webhooks: { payment } })], [PaymentHandlers], false);
    const response = await postCallback(server, "/webhooks/payment");
    expect(response.status).toBe(500);
    expect(response.body.success).toBe(false);
    expect(response.body.message).toMatch(/rawBody: true/);
    expect(JSON.stringify(response.body)).not.toContain(callbackKey);
    expect(calls).not.toHaveBeenCalled();
  });

  it("serves custom paths under a custom prefix, and 404 elsewhere", async () => {
    const { server } = await boot(
      [KirimbayarModule.forRoot({ webhookPath: "hooks/v1", webhooks: { orders, paths: { orders: "order-status" } } })],
      [ShippingHandlers],
    );
    const body = JSON.stringify({ order_no: "ORD-1", cnote: "JP1", status: "Dikirim" });
    expect((await request(server).put("/hooks/v1/order-status?token=t0ken").type("json").send(body)).status).toBe(200);
    expect((await request(server).put("/hooks/v1/orders?token=t0ken").type("json").send(body)).status).toBe(404);
    expect((await request(server).put("/webhooks/order-status?token=t0ken").type("json").send(body)).status).toBe(404);
  });
});

describe("KirimbayarModule under a global prefix (app.setGlobalPrefix)", () => {
  it("serves the webhooks under it, and hands bodies Nest's parser refused to core", async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [KirimbayarModule.forRoot({ webhooks: { payment, orders } })],
      providers: [PaymentHandlers, ShippingHandlers],
    }).compile();
    const app = moduleRef.createNestApplication({ rawBody: true, logger: false });
    app.setGlobalPrefix("api");
    close = () => app.close();
    await app.init();
    const server = app.getHttpServer();
    const paid = await postCallback(server, "/api/webhooks/payment");
    expect(paid.status).toBe(200);
    expect(calls).toHaveBeenCalledWith("payment", expect.objectContaining({ payment_id: "KPAY-1" }));
    // Malformed JSON: Nest's parser fails first; core still checks the signature and answers 401, not Nest's 400.
    const malformed = await postCallback(server, "/api/webhooks/payment", "{not json", "0".repeat(64));
    expect(malformed.status).toBe(401);
    expect(malformed.body.success).toBe(false);
    // Larger than Nest's parser allows (100 kB): core's 413 and body.
    const huge = await request(server)
      .post("/api/webhooks/orders?token=t0ken")
      .type("json")
      .send(JSON.stringify({ order_no: "ORD-1", cnote: "JP1", status: "Dikirim", note: "x".repeat(200_000) }));
    expect(huge.status).toBe(413);
    expect(huge.body).toEqual({ success: false, message: expect.stringMatching(/larger than/) });
    expect((await request(server).post("/webhooks/payment").type("json").send(callback)).status).toBe(404);
    expect(calls).toHaveBeenCalledOnce();
  });
});

/** What `promise` rejected with (fails the test if it resolved), so that a test can check its class and message. */
async function failureOf(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(Error);
  return outcome as Error;
}

describe("KirimbayarModule boot checks", () => {
  it("fails when a configured source has no handler method", async () => {
    const error = await failureOf(
      boot([KirimbayarModule.forRoot({ webhooks: { payment, orders } })], [PaymentHandlers]),
    );
    expect(error).toBeInstanceOf(WebhookConfigurationError);
    expect(error.message).toMatch(
      /webhooks\.orders is configured but no provider method is marked with @OnOrderStatus\(\)/,
    );
  });

  it("fails when a handler's source is not configured", async () => {
    const error = await failureOf(
      boot([KirimbayarModule.forRoot({ webhooks: { payment } })], [PaymentHandlers, ShippingHandlers]),
    );
    expect(error).toBeInstanceOf(WebhookConfigurationError);
    expect(error.message).toMatch(
      /ShippingHandlers\.shipped is marked with @OnOrderStatus\(\) but webhooks\.orders is not configured/,
    );
  });

  it("fails when a source has no verification", async () => {
    await expect(
      boot([KirimbayarModule.forRoot({ webhooks: { payment: { verify: [] } } })], [PaymentHandlers]),
    ).rejects.toThrow(WebhookConfigurationError);
  });

  it("fails when a path is not one segment", async () => {
    const error = await failureOf(
      boot([KirimbayarModule.forRoot({ webhooks: { payment, paths: { payment: "a/b" } } })], [PaymentHandlers]),
    );
    expect(error).toBeInstanceOf(WebhookConfigurationError);
    expect(error.message).toMatch(/one unique path segment/);
  });
});

@Injectable()
class Checkout {
  constructor(@Inject(QrisClient) readonly qris: QrisClient) {}
}

@Module({ providers: [Checkout], exports: [Checkout] })
class CheckoutModule {}

@Injectable()
class QrisHandlers {
  @OnQrisEvent("payment.success")
  paid() {}
}

describe("KirimbayarModule clients", () => {
  it("forRoot provides exactly the configured clients, injectable by class", async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [KirimbayarModule.forRoot({ clients: { qris: apiOptions } })],
    }).compile();
    expect(moduleRef.get(QrisClient)).toBeInstanceOf(QrisClient);
    expect(() => moduleRef.get(ShippingClient)).toThrow();
  });

  it("forRootAsync + isGlobal: clients and webhooks from a factory, injected in another module", async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        KirimbayarModule.forRootAsync({
          isGlobal: true,
          provideClients: ["qris"],
          useFactory: async () => ({
            clients: { qris: apiOptions },
            webhooks: { qris: { verify: [tokenVerifier({ secrets: ["q"], in: "query", name: "token" })] } },
          }),
        }),
        CheckoutModule,
      ],
      providers: [QrisHandlers],
    }).compile();
    const app = moduleRef.createNestApplication({ rawBody: true, logger: false });
    close = () => app.close();
    await app.init();
    expect(moduleRef.get(Checkout).qris).toBeInstanceOf(QrisClient);
    expect(moduleRef.get(Checkout).qris).toBe(moduleRef.get(QrisClient));
  });

  it("forRootAsync fails at boot when a listed client is not configured", async () => {
    const error = await failureOf(
      Test.createTestingModule({
        imports: [KirimbayarModule.forRootAsync({ provideClients: ["shipping"], useFactory: () => ({}) })],
      }).compile(),
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toMatch(/ShippingClient is provided but clients\.shipping is not configured/);
  });
});

describe("KirimbayarModule on the Fastify platform", () => {
  async function bootOnFastify(options: Parameters<typeof KirimbayarModule.forRoot>[0], providers: unknown[] = []) {
    const { FastifyAdapter } = await import("@nestjs/platform-fastify");
    const moduleRef = await Test.createTestingModule({
      imports: [KirimbayarModule.forRoot(options)],
      providers: providers as never[],
    }).compile();
    const app = moduleRef.createNestApplication(new FastifyAdapter(), { logger: false });
    close = () => app.close();
    return app;
  }

  it("refuses to start with webhooks, naming the platform it needs", async () => {
    // With a handler for the configured source, so that the platform is the only thing wrong.
    const app = await bootOnFastify({ webhooks: { orders } }, [ShippingHandlers]);
    const error = await failureOf(app.init());
    expect(error).toBeInstanceOf(WebhookConfigurationError);
    expect(error.message).toMatch(/webhooks need the Express platform .* runs on "fastify"/);
    // Before this check the app started, and every delivery got Nest's generic 500.
  });

  it("starts with API clients only, which work on any platform", async () => {
    const app = await bootOnFastify({ clients: { shipping: apiOptions } });
    await app.init();
    expect(app.get(ShippingClient)).toBeInstanceOf(ShippingClient);
  });
});
