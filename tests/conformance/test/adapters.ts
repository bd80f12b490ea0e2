import "reflect-metadata";
import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import type { WebhookContext, WebhookReceiver, WebhookSource } from "@kirimbayar/core/webhooks";
import { createWebhookRouter, type WebhookRouterOptions } from "@kirimbayar/express";
import { createWebhookPlugin } from "@kirimbayar/fastify";
import { createWebhookApp } from "@kirimbayar/hono";
import { KirimbayarModule, OnOrderStatus, OnPaymentCallback, OnQrisEvent } from "@kirimbayar/nestjs";
import { type INestApplication, Inject, Injectable } from "@nestjs/common";
import { FastifyAdapter } from "@nestjs/platform-fastify";
import { Test } from "@nestjs/testing";
import express, { type Express } from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import request from "supertest";
import type { HandlerRecorder } from "./recorder.js";

/** One webhook delivery of the table. */
export interface Delivery {
  /** The path segment under `/webhooks`; `unknown` is a path no source is mounted at. */
  source: WebhookSource | "unknown";
  method?: string;
  /** Appended to the path, e.g. `?token=...`. */
  query?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

/** A response as every driver reports it. */
export interface DeliveryResult {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The receiver options of the three sources (without `source`), as each adapter takes them. */
export type SourceOptions = Required<Pick<WebhookRouterOptions, "qris" | "payment" | "orders">>;

/** An app under test, listening on 127.0.0.1 where the framework needs a socket. */
export interface RunningApp {
  send(delivery: Delivery): Promise<DeliveryResult>;
  /** The listening server, for tests that speak raw HTTP on a socket; absent where the app has none. */
  server?: Server;
  /** The app's Web entry, where it has no server (Hono's `app.request()`). */
  fetch?: (request: Request) => Promise<Response>;
  close(): Promise<void>;
}

/** How to boot one framework app with the kirimbayar adapter mounted at `/webhooks`. */
export interface AdapterUnderTest {
  name: "express" | "fastify" | "hono" | "hono on node-server" | "nestjs" | "nestjs on fastify";
  start(sources: SourceOptions, recorder: HandlerRecorder): Promise<RunningApp>;
}

/** Receivers by source, as the Express router and the Hono app expose them. */
export interface Receivers {
  qris?: WebhookReceiver<"qris">;
  payment?: WebhookReceiver<"payment">;
  orders?: WebhookReceiver<"orders">;
}

/** Registers the recorder on receivers the adapter built from options (Express and Hono expose them). */
export function attachRecorder(receivers: Receivers, recorder: HandlerRecorder): void {
  receivers.qris?.on("payment.success", (event, ctx) => recorder.handle("qris", event, ctx));
  receivers.qris?.on("payment.expired", (event, ctx) => recorder.handle("qris", event, ctx));
  receivers.payment?.on("payment.callback", (event) => recorder.handle("payment", event));
  receivers.orders?.on("order.status", (event) => recorder.handle("orders", event));
}

function pathOf(delivery: Delivery): string {
  return `/webhooks/${delivery.source}${delivery.query ?? ""}`;
}

/** Sends a delivery through supertest to a listening Node server. */
export async function sendWithSupertest(server: Server, delivery: Delivery): Promise<DeliveryResult> {
  const method = (delivery.method ?? "POST").toLowerCase() as "post";
  let test = request(server)
    [method](pathOf(delivery))
    .buffer(true)
    .parse((res, done) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () => done(null, text));
    });
  for (const [name, value] of Object.entries(delivery.headers ?? {})) test = test.set(name, value);
  // Sent as bytes exactly: superagent would otherwise JSON-encode a Buffer body under a JSON content type.
  const response =
    delivery.body === undefined ? await test : await test.serialize((bytes) => bytes).send(toBuffer(delivery.body));
  return { status: response.status, headers: response.headers as Record<string, string>, body: response.body };
}

function toBuffer(body: string | Uint8Array): Buffer {
  return typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body);
}

/** Listens on a free loopback port and returns the server once it is ready. */
export function listen(app: Express): Promise<Server> {
  return new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => resolve(server));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.closeAllConnections();
    server.close((error) => (error ? reject(error) : resolve()));
  });
}

/** Express 5: `app.use("/webhooks", createWebhookRouter(...))`, requests through supertest. */
export const expressAdapter: AdapterUnderTest = {
  name: "express",
  async start(sources, recorder) {
    const app = express();
    const router = createWebhookRouter(sources);
    attachRecorder(router.receivers, recorder);
    app.use("/webhooks", router);
    const server = await listen(app);
    return { send: (delivery) => sendWithSupertest(server, delivery), close: () => closeServer(server), server };
  },
};

/** Fastify 5: `app.register(createWebhookPlugin(...), { prefix: "/webhooks" })`, on a loopback port. */
export const fastifyAdapter: AdapterUnderTest = {
  name: "fastify",
  async start(sources, recorder) {
    const app = Fastify();
    const plugin = createWebhookPlugin(sources);
    attachRecorder(plugin.receivers, recorder);
    app.register(plugin, { prefix: "/webhooks" });
    await app.listen({ port: 0, host: "127.0.0.1" });
    const server = app.server;
    return {
      send: (delivery) => sendWithSupertest(server, delivery),
      close: async () => {
        server.closeAllConnections();
        await app.close();
      },
      server,
    };
  },
};

/** The Hono app both Hono drivers serve: `app.route("/webhooks", createWebhookApp(...))`. */
function honoShop(sources: SourceOptions, recorder: HandlerRecorder): Hono {
  const webhooks = createWebhookApp(sources);
  attachRecorder(webhooks.receivers, recorder);
  return new Hono().route("/webhooks", webhooks);
}

/** Hono, requests through `app.request()`. */
export const honoAdapter: AdapterUnderTest = {
  name: "hono",
  async start(sources, recorder) {
    const app = honoShop(sources, recorder);
    return {
      async send(delivery) {
        const init: RequestInit = { method: delivery.method ?? "POST", headers: delivery.headers ?? {} };
        if (delivery.body !== undefined) init.body = new Uint8Array(toBuffer(delivery.body));
        const response = await app.request(`http://127.0.0.1${pathOf(delivery)}`, init);
        return {
          status: response.status,
          headers: Object.fromEntries(response.headers),
          body: await response.text(),
        };
      },
      fetch: async (request) => app.request(request),
      close: async () => {},
    };
  },
};

/**
 * Hono served by @hono/node-server over real HTTP, where the app reads bodies from Node's request stream instead
 * of `c.req` (the path most Node users of the Hono adapter take).
 */
export const honoNodeServerAdapter: AdapterUnderTest = {
  name: "hono on node-server",
  async start(sources, recorder) {
    const app = honoShop(sources, recorder);
    const server = await new Promise<Server>((resolve) => {
      const started = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(started as Server));
    });
    return { send: (delivery) => sendWithSupertest(server, delivery), close: () => closeServer(server), server };
  },
};

const RECORDER = Symbol("conformance-recorder");

/** The user's own provider, whose decorated methods the module discovers. */
@Injectable()
export class ConformanceHandlers {
  constructor(@Inject(RECORDER) private readonly recorder: HandlerRecorder) {}

  @OnQrisEvent("payment.success")
  @OnQrisEvent("payment.expired")
  qris(event: unknown, ctx: WebhookContext): Promise<void> {
    return this.recorder.handle("qris", event, ctx);
  }

  @OnPaymentCallback()
  payment(event: unknown): Promise<void> {
    return this.recorder.handle("payment", event);
  }

  @OnOrderStatus()
  orders(event: unknown): Promise<void> {
    return this.recorder.handle("orders", event);
  }
}

/**
 * Boots a NestJS app around `KirimbayarModule.forRoot()`: on the Express platform (default), with or without
 * `rawBody: true`, or on the Fastify platform (`new FastifyAdapter()`, no `rawBody` option: the module reads the
 * webhook bodies itself there). Listens on a loopback port.
 */
export async function startNestApp(
  sources: SourceOptions,
  recorder: HandlerRecorder,
  options: { rawBody: boolean; platform?: "express" | "fastify" } = { rawBody: true },
): Promise<{ app: INestApplication; running: RunningApp }> {
  const moduleRef = await Test.createTestingModule({
    imports: [KirimbayarModule.forRoot({ webhooks: sources })],
    providers: [ConformanceHandlers, { provide: RECORDER, useValue: recorder }],
  }).compile();
  if (options.platform === "fastify") {
    const app = moduleRef.createNestApplication(new FastifyAdapter(), { logger: false });
    await app.listen(0, "127.0.0.1");
    const server = app.getHttpServer() as Server;
    return {
      app,
      running: { send: (delivery) => sendWithSupertest(server, delivery), close: () => app.close(), server },
    };
  }
  const app = moduleRef.createNestApplication({ rawBody: options.rawBody, logger: false });
  await app.init();
  const server = app.getHttpServer() as Server;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    app,
    running: { send: (delivery) => sendWithSupertest(server, delivery), close: () => app.close(), server },
  };
}

/** NestJS 12 on Express, created by `@nestjs/testing` with `rawBody: true`, requests through supertest. */
export const nestAdapter: AdapterUnderTest = {
  name: "nestjs",
  async start(sources, recorder) {
    return (await startNestApp(sources, recorder)).running;
  },
};

/** NestJS 12 on Fastify (`@nestjs/platform-fastify`), created by `@nestjs/testing`, requests through supertest. */
export const nestFastifyAdapter: AdapterUnderTest = {
  name: "nestjs on fastify",
  async start(sources, recorder) {
    return (await startNestApp(sources, recorder, { rawBody: false, platform: "fastify" })).running;
  },
};

/** Every adapter the conformance table runs against. */
export const adapters: AdapterUnderTest[] = [
  expressAdapter,
  fastifyAdapter,
  honoAdapter,
  honoNodeServerAdapter,
  nestAdapter,
  nestFastifyAdapter,
];
