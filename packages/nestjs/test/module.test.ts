import "reflect-metadata";
import { createHmac } from "node:crypto";
import type { Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { gzipSync } from "node:zlib";
import { ConfigurationError, QrisClient, ShippingClient } from "@kirimbayar/core";
import { callbackKeyVerifier, tokenVerifier, WebhookConfigurationError } from "@kirimbayar/core/webhooks";
import {
  Body,
  type CanActivate,
  Controller,
  type ExecutionContext,
  type INestApplication,
  Inject,
  Injectable,
  Module,
  Post,
  VersioningType,
} from "@nestjs/common";
import { APP_GUARD } from "@nestjs/core";
import { ExpressAdapter } from "@nestjs/platform-express";
import { FastifyAdapter, type NestFastifyApplication } from "@nestjs/platform-fastify";
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

/** The HTTP platforms the module runs on; each test of the webhooks runs on both. */
type Platform = "express" | "fastify";
const platforms: Platform[] = ["express", "fastify"];

interface BootOptions {
  /** Default: Express. */
  platform?: Platform;
  /** `rawBody` of the app options: default `true` on Express (required there), unset on Fastify (not needed). */
  rawBody?: boolean;
  globalPrefix?: string;
  controllers?: unknown[];
  /** Runs on the app before it listens (e.g. to add hooks to the platform's instance). */
  beforeListen?: (app: INestApplication) => void;
}

/** Boots the app on `platform`, listening on a free loopback port: every test speaks real HTTP to it. */
async function boot(imports: unknown[], providers: unknown[], options: BootOptions = {}) {
  const { platform = "express", globalPrefix } = options;
  const moduleRef = await Test.createTestingModule({
    imports: imports as never[],
    providers: providers as never[],
    controllers: (options.controllers ?? []) as never[],
  }).compile();
  const rawBody = options.rawBody ?? (platform === "express" ? true : undefined);
  const appOptions = { logger: false as const, ...(rawBody === undefined ? {} : { rawBody }) };
  const app =
    platform === "express"
      ? moduleRef.createNestApplication(appOptions)
      : moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), appOptions);
  if (globalPrefix !== undefined) app.setGlobalPrefix(globalPrefix);
  options.beforeListen?.(app);
  close = () => app.close();
  await app.listen(0, "127.0.0.1");
  const server = app.getHttpServer() as Server;
  return { app, server, port: (server.address() as AddressInfo).port };
}

/** Posts a payment callback (signed with the test key unless `signedWith` says otherwise) to `path`. */
const postCallback = (server: Parameters<typeof request>[0], path: string, body = callback, signedWith = signature) =>
  request(server).post(path).set("content-type", "application/json").set("x-callback-api-key", signedWith).send(body);

describe.each(platforms)("KirimbayarModule webhooks on %s", (platform) => {
  it("dispatches to decorated provider methods (one order status only)", async () => {
    const { server } = await boot(
      [KirimbayarModule.forRoot({ webhooks: { payment, orders } })],
      [PaymentHandlers, ShippingHandlers],
      { platform },
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

  it("serves custom paths under a custom prefix, and 404 elsewhere", async () => {
    const { server } = await boot(
      [KirimbayarModule.forRoot({ webhookPath: "hooks/v1", webhooks: { orders, paths: { orders: "order-status" } } })],
      [ShippingHandlers],
      { platform },
    );
    const body = JSON.stringify({ order_no: "ORD-1", cnote: "JP1", status: "Dikirim" });
    expect((await request(server).put("/hooks/v1/order-status?token=t0ken").type("json").send(body)).status).toBe(200);
    expect((await request(server).put("/hooks/v1/orders?token=t0ken").type("json").send(body)).status).toBe(404);
    expect((await request(server).put("/webhooks/order-status?token=t0ken").type("json").send(body)).status).toBe(404);
  });

  it("serves the webhooks under a global prefix (app.setGlobalPrefix), with core's answers to any body", async () => {
    const { server } = await boot(
      [KirimbayarModule.forRoot({ webhooks: { payment, orders } })],
      [PaymentHandlers, ShippingHandlers],
      { platform, globalPrefix: "api" },
    );
    const paid = await postCallback(server, "/api/webhooks/payment");
    expect(paid.status).toBe(200);
    expect(calls).toHaveBeenCalledWith("payment", expect.objectContaining({ payment_id: "KPAY-1" }));
    // Malformed JSON: core still checks the signature and answers 401, not the JSON parser's 400.
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

describe.each(platforms)("KirimbayarModule under URI versioning on %s", (platform) => {
  it("serves the webhooks at the versioned path, with core's answers", async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [KirimbayarModule.forRoot({ webhooks: { payment } })],
      providers: [PaymentHandlers],
    }).compile();
    const app =
      platform === "express"
        ? moduleRef.createNestApplication({ rawBody: true, logger: false })
        : moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    app.enableVersioning({ type: VersioningType.URI, defaultVersion: "1" });
    close = () => app.close();
    await app.listen(0, "127.0.0.1");
    const server = app.getHttpServer();
    expect((await postCallback(server, "/v1/webhooks/payment")).status).toBe(200);
    expect((await postCallback(server, "/v1/webhooks/payment", "{not json", "0".repeat(64))).status).toBe(401);
    expect(calls).toHaveBeenCalledOnce();
  });
});

describe("KirimbayarModule raw body on Express", () => {
  it("answers 500 naming { rawBody: true } when the app was created without it", async () => {
    const { server } = await boot([KirimbayarModule.forRoot({ webhooks: { payment } })], [PaymentHandlers], {
      rawBody: false,
    });
    const response = await postCallback(server, "/webhooks/payment");
    expect(response.status).toBe(500);
    expect(response.body.success).toBe(false);
    expect(response.body.message).toMatch(/rawBody: true/);
    expect(JSON.stringify(response.body)).not.toContain(callbackKey);
    expect(calls).not.toHaveBeenCalled();
  });
});

describe("KirimbayarModule raw body on Fastify", () => {
  it.each([undefined, false, true])("reads the webhook bodies itself, with rawBody: %s", async (rawBody) => {
    const { server } = await boot([KirimbayarModule.forRoot({ webhooks: { payment } })], [PaymentHandlers], {
      platform: "fastify",
      ...(rawBody === undefined ? {} : { rawBody }),
    });
    expect((await postCallback(server, "/webhooks/payment")).status).toBe(200);
    expect(calls).toHaveBeenCalledOnce();
  });

  it("sends core's exact answer whatever serializers the app's Fastify instance set", async () => {
    const wrap = (payload: unknown) => JSON.stringify({ wrapped: payload });
    const { server } = await boot([KirimbayarModule.forRoot({ webhooks: { payment } })], [PaymentHandlers], {
      platform: "fastify",
      beforeListen: (app) => {
        const fastify = (app as NestFastifyApplication).getHttpAdapter().getInstance();
        fastify.setReplySerializer(wrap);
        fastify.addHook("preHandler", async (_request, reply) => {
          reply.serializer(wrap);
        });
      },
    });
    const answer = await postCallback(server, "/webhooks/payment");
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(JSON.stringify({ success: true, message: "Webhook processed" }));
    expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(calls).toHaveBeenCalledOnce();
  });
});

/** The app's own routes, next to the webhooks: JSON bodies parsed by the platform as usual. */
@Controller("orders")
class OrdersController {
  @Post()
  create(@Body() body: { item?: string }) {
    return { received: body };
  }
}

const seenByGuard: (string | undefined)[] = [];

/** A global guard: sees every request (webhooks included) after the body was read, headers as they came. */
@Injectable()
class HeaderRecordingGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>();
    seenByGuard.push(req.headers["content-type"]);
    return true;
  }
}

/** What a raw socket got back: status, head, body, and how long the answer took. */
interface RawAnswer {
  status: number;
  head: string;
  body: string;
  elapsedMs: number;
}

/** The status and body of the HTTP answer in `text`, once it is whole (either framing); `undefined` until then. */
function parseAnswer(text: string): Omit<RawAnswer, "elapsedMs"> | undefined {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const head = text.slice(0, end);
  const status = Number(head.split(" ")[1]);
  let rest = text.slice(end + 4);
  if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
    let body = "";
    for (;;) {
      const lineEnd = rest.indexOf("\r\n");
      if (lineEnd < 0) return undefined;
      const size = Number.parseInt(rest.slice(0, lineEnd), 16);
      if (size === 0) return { status, head, body };
      if (rest.length < lineEnd + 2 + size + 2) return undefined;
      body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
      rest = rest.slice(lineEnd + 2 + size + 2);
    }
  }
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1]);
  return Buffer.byteLength(rest) < length ? undefined : { status, head, body: rest };
}

/**
 * Writes a request head (and `body`, if any) on a socket that stays open, and resolves with the first whole answer:
 * the client never finishes the body, so only the server can settle the exchange.
 */
function exchangeOnSocket(port: number, head: string, body = ""): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(port, "127.0.0.1");
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error("no answer within 5 s"));
    }, 5_000);
    let received = "";
    const settle = () => {
      const answer = parseAnswer(received);
      if (answer === undefined) return false;
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ ...answer, elapsedMs: performance.now() - started });
      return true;
    };
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      received += chunk;
      settle();
    });
    socket.on("close", () => {
      if (!settle()) reject(new Error(`closed without a whole answer: ${JSON.stringify(received)}`));
    });
    socket.on("error", () => {});
    socket.write(`${head}\r\n\r\n${body}`);
  });
}

describe.each(platforms)("KirimbayarModule HTTP contract on %s", (platform) => {
  const DEADLINE_MS = 300;
  const slowPayment = { ...payment, bodyReadTimeoutMs: DEADLINE_MS };

  async function bootShop() {
    seenByGuard.length = 0;
    return boot(
      [KirimbayarModule.forRoot({ webhooks: { payment: slowPayment, orders } })],
      [PaymentHandlers, ShippingHandlers, { provide: APP_GUARD, useClass: HeaderRecordingGuard }],
      { platform, controllers: [OrdersController] },
    );
  }

  /** Every answer of the test, to check that none of them carries a secret. */
  const answers: string[] = [];
  const keep = <T extends { text: string; headers: Record<string, unknown> }>(response: T): T => {
    answers.push(response.text, JSON.stringify(response.headers));
    return response;
  };
  const onSocket = async (...args: Parameters<typeof exchangeOnSocket>): Promise<RawAnswer> => {
    const answer = await exchangeOnSocket(...args);
    answers.push(answer.head, answer.body);
    return answer;
  };
  afterEach(() => {
    expect(answers.length).toBeGreaterThan(0);
    for (const answer of answers.splice(0)) {
      expect(answer).not.toContain(callbackKey);
      expect(answer).not.toContain("t0ken");
    }
  });

  it("answers a verified delivery 200 after its handler ran, and a duplicate 200 without running it again", async () => {
    const { server } = await bootShop();
    expect(keep(await postCallback(server, "/webhooks/payment")).status).toBe(200);
    expect(keep(await postCallback(server, "/webhooks/payment")).status).toBe(200);
    expect(calls.mock.calls).toEqual([["payment", expect.objectContaining({ payment_id: "KPAY-1" })]]);
    // The app's guard ran for both, and saw the request's own Content-Type.
    expect(seenByGuard).toEqual(["application/json", "application/json"]);
  });

  it("refuses a forged delivery 401 (signature, token) without running a handler", async () => {
    const { server } = await bootShop();
    const forged = keep(await postCallback(server, "/webhooks/payment", callback, "f".repeat(64)));
    expect(forged.status).toBe(401);
    expect(forged.body).toEqual({ success: false, message: expect.any(String) });
    const wrongToken = keep(
      await request(server)
        .post("/webhooks/orders?token=wrong")
        .type("json")
        .send(JSON.stringify({ order_no: "ORD-1", cnote: "JP1", status: "Dikirim" })),
    );
    expect(wrongToken.status).toBe(401);
    expect(calls).not.toHaveBeenCalled();
  });

  it("answers GET 405 with Allow, and a wrong content type 415", async () => {
    const { server } = await bootShop();
    const get = keep(await request(server).get("/webhooks/payment"));
    expect(get.status).toBe(405);
    expect(get.headers.allow).toMatch(/POST/);
    const text = keep(
      await request(server)
        .post("/webhooks/payment")
        .set("content-type", "text/plain")
        .set("x-callback-api-key", signature)
        .send(callback),
    );
    expect(text.status).toBe(415);
    expect(text.body.success).toBe(false);
    expect(calls).not.toHaveBeenCalled();
  });

  it("takes a gzip body, its signature checked over the decoded JSON", async () => {
    const { server } = await bootShop();
    const gzipped = keep(
      await request(server)
        .post("/webhooks/payment")
        .set("content-type", "application/json")
        .set("content-encoding", "gzip")
        .set("x-callback-api-key", signature)
        .serialize((bytes) => bytes)
        .send(gzipSync(callback)),
    );
    expect(gzipped.status).toBe(200);
    expect(calls).toHaveBeenCalledWith("payment", expect.objectContaining({ payment_id: "KPAY-1" }));
  });

  it("answers a declared Content-Length over maxBodyBytes 413 at once, without the body being sent", async () => {
    const { port } = await bootShop();
    const answer = await onSocket(
      port,
      "POST /webhooks/payment HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n" +
        `x-callback-api-key: ${signature}\r\ncontent-length: 10000000`,
    );
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ success: false, message: "Body is larger than 65536 bytes" });
    expect(answer.elapsedMs).toBeLessThan(DEADLINE_MS);
    expect(calls).not.toHaveBeenCalled();
  });

  it("answers a stalled body 408 once bodyReadTimeoutMs passed", async () => {
    const { port } = await bootShop();
    const answer = await onSocket(
      port,
      "POST /webhooks/payment HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n" +
        `x-callback-api-key: ${signature}\r\ncontent-length: ${Buffer.byteLength(callback)}`,
      callback.slice(0, 20),
    );
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toEqual({ success: false, message: expect.stringMatching(/300 ms/) });
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
    expect(answer.elapsedMs).toBeLessThan(DEADLINE_MS + 2_000);
    expect(calls).not.toHaveBeenCalled();
  });

  it("answers what the platform would refuse before a route (QUERY, a malformed Content-Type) as core does", async () => {
    const { port } = await bootShop();
    const send = (method: string, contentType: string) =>
      onSocket(
        port,
        `${method} /webhooks/payment HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: ${contentType}\r\n` +
          `x-callback-api-key: ${signature}\r\ncontent-length: ${Buffer.byteLength(callback)}`,
        callback,
      );
    const query = await send("QUERY", "application/json");
    expect(query.status).toBe(405);
    expect(JSON.parse(query.body)).toEqual({ success: false, message: expect.stringMatching(/accepts POST/) });
    const malformed = await send("POST", "json");
    expect(malformed.status).toBe(415);
    expect(JSON.parse(malformed.body)).toMatchObject({ success: false });
    expect(calls).not.toHaveBeenCalled();
  });

  it("leaves the app's own routes their parsed JSON @Body()", async () => {
    const { server } = await bootShop();
    const created = keep(await request(server).post("/orders").send({ item: "kopi" }));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ received: { item: "kopi" } });
    // The platform's JSON parser still answers a malformed body on them.
    expect((await request(server).post("/orders").type("json").send("{nope")).status).toBe(400);
    // And a content type it has no parser for (the module's own type included, on Fastify).
    const unknown = await request(server)
      .post("/orders")
      .set("content-type", "application/x-kirimbayar-body-read")
      .send("{}");
    expect(unknown.status).toBe(platform === "fastify" ? 415 : 201);
  });
});

describe("KirimbayarModule on a platform other than Express and Fastify", () => {
  it("refuses to start with webhooks, naming the platform it runs on", async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [KirimbayarModule.forRoot({ webhooks: { orders } })],
      providers: [ShippingHandlers],
    }).compile();
    // An adapter that says it is another platform (as a Koa or h3 adapter would).
    const adapter = new ExpressAdapter();
    adapter.getType = () => "koa";
    const app = moduleRef.createNestApplication(adapter, { logger: false });
    close = () => app.close();
    const error = await failureOf(app.init());
    expect(error).toBeInstanceOf(WebhookConfigurationError);
    expect(error.message).toMatch(/webhooks need the Express or the Fastify platform .* runs on "koa"/);
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

describe.each(platforms)("KirimbayarModule boot checks on %s", (platform) => {
  it("fails when a configured source has no handler method", async () => {
    const error = await failureOf(
      boot([KirimbayarModule.forRoot({ webhooks: { payment, orders } })], [PaymentHandlers], { platform }),
    );
    expect(error).toBeInstanceOf(WebhookConfigurationError);
    expect(error.message).toMatch(
      /webhooks\.orders is configured but no provider method is marked with @OnOrderStatus\(\)/,
    );
  });

  it("fails when a handler's source is not configured", async () => {
    const error = await failureOf(
      boot([KirimbayarModule.forRoot({ webhooks: { payment } })], [PaymentHandlers, ShippingHandlers], { platform }),
    );
    expect(error).toBeInstanceOf(WebhookConfigurationError);
    expect(error.message).toMatch(
      /ShippingHandlers\.shipped is marked with @OnOrderStatus\(\) but webhooks\.orders is not configured/,
    );
  });

  it("fails when a source has no verification", async () => {
    await expect(
      boot([KirimbayarModule.forRoot({ webhooks: { payment: { verify: [] } } })], [PaymentHandlers], { platform }),
    ).rejects.toThrow(WebhookConfigurationError);
  });

  it("fails when a path is not one segment", async () => {
    const error = await failureOf(
      boot([KirimbayarModule.forRoot({ webhooks: { payment, paths: { payment: "a/b" } } })], [PaymentHandlers], {
        platform,
      }),
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

describe("KirimbayarModule API clients on Fastify", () => {
  it("starts with API clients only", async () => {
    const { app } = await boot([KirimbayarModule.forRoot({ clients: { shipping: apiOptions } })], [], {
      platform: "fastify",
    });
    expect(app.get(ShippingClient)).toBeInstanceOf(ShippingClient);
  });
});
