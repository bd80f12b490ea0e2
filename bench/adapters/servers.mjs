// One benchmark server per framework (Express, Hono, NestJS, Fastify), each with three POST routes on the same app:
//   /bare                 the framework's plain JSON route
//   /handrolled?token=…   the minimal hand-rolled equivalent (handrolled.mjs), context
//   /same-checks?token=…  the hand-rolled route doing the webhook route's checks (handrolled.mjs), the goals' baseline
//   /webhooks/qris?token=… the kirimbayar adapter (memory store, token verification)
import "reflect-metadata";
import { MemoryIdempotencyStore, tokenVerifier } from "@kirimbayar/core/webhooks";
import { createHandRolled, createHandRolledSameChecks, HAND_ROLLED_CACHE_ENTRIES, TOKEN } from "./handrolled.mjs";

const webhookOptions = () => ({
  qris: {
    verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
    // As many entries as the hand-rolled route's cache, so both hold the same working set in memory.
    idempotency: { store: new MemoryIdempotencyStore({ maxEntries: HAND_ROLLED_CACHE_ENTRIES }) },
  },
});
const processed = async () => {};

async function express(port) {
  const { default: express } = await import("express");
  const { createWebhookRouter } = await import("@kirimbayar/express");
  const app = express();
  const handRolled = createHandRolled();
  const router = createWebhookRouter(webhookOptions());
  router.receivers.qris.on("payment.success", processed);
  app.use("/webhooks", router);
  app.post("/bare", express.json(), (req, res) => res.json({ ok: true, id: req.body.data?.qris_history_id }));
  app.post("/handrolled", express.raw({ type: "application/json", limit: "64kb" }), (req, res) => {
    const [status, body] = handRolled(req.query.token, req.body);
    res.status(status).json(body);
  });
  const sameChecks = createHandRolledSameChecks(processed);
  app.post("/same-checks", express.raw({ type: "application/json", limit: "64kb" }), async (req, res) => {
    const [status, body] = await sameChecks(req.query.token, req.body);
    res.status(status).json(body);
  });
  return new Promise((resolve) => app.listen(port, "127.0.0.1", resolve));
}

async function hono(port) {
  const { Hono } = await import("hono");
  const { serve } = await import("@hono/node-server");
  const { createWebhookApp } = await import("@kirimbayar/hono");
  const handRolled = createHandRolled();
  const sameChecks = createHandRolledSameChecks(processed);
  const webhooks = createWebhookApp(webhookOptions());
  webhooks.receivers.qris.on("payment.success", processed);
  const app = new Hono()
    .route("/webhooks", webhooks)
    .post("/bare", async (c) => c.json({ ok: true, id: (await c.req.json()).data?.qris_history_id }))
    .post("/handrolled", async (c) => {
      const [status, body] = handRolled(c.req.query("token"), await c.req.text());
      return c.json(body, status);
    })
    .post("/same-checks", async (c) => {
      // The bytes, as the receiver reads them: strict UTF-8 is part of the checks.
      const raw = new Uint8Array(await c.req.arrayBuffer());
      const [status, body] = await sameChecks(c.req.query("token"), raw);
      return c.json(body, status);
    });
  return new Promise((resolve) => serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, resolve));
}

async function nestjs(port) {
  const { Body, Controller, Injectable, Module, Post, Query, Req, Res } = await import("@nestjs/common");
  const { NestFactory } = await import("@nestjs/core");
  const { KirimbayarModule, OnQrisEvent } = await import("@kirimbayar/nestjs");
  const handRolled = createHandRolled();
  const sameChecks = createHandRolledSameChecks(processed);

  // Decorators applied as functions: this file is plain JavaScript.
  class BenchController {
    bare(body) {
      return { ok: true, id: body.data?.qris_history_id };
    }
    handrolled(req, token, res) {
      const [status, body] = handRolled(token, req.rawBody);
      res.status(status).json(body);
    }
    async sameChecks(req, token, res) {
      const [status, body] = await sameChecks(token, req.rawBody);
      res.status(status).json(body);
    }
  }
  const method = (name) => [
    BenchController.prototype,
    name,
    Object.getOwnPropertyDescriptor(BenchController.prototype, name),
  ];
  Post("bare")(...method("bare"));
  Body()(BenchController.prototype, "bare", 0);
  Post("handrolled")(...method("handrolled"));
  Req()(BenchController.prototype, "handrolled", 0);
  Query("token")(BenchController.prototype, "handrolled", 1);
  Res()(BenchController.prototype, "handrolled", 2);
  Post("same-checks")(...method("sameChecks"));
  Req()(BenchController.prototype, "sameChecks", 0);
  Query("token")(BenchController.prototype, "sameChecks", 1);
  Res()(BenchController.prototype, "sameChecks", 2);
  Controller()(BenchController);

  class PaymentHandlers {
    paid() {}
  }
  OnQrisEvent("payment.success")(
    PaymentHandlers.prototype,
    "paid",
    Object.getOwnPropertyDescriptor(PaymentHandlers.prototype, "paid"),
  );
  Injectable()(PaymentHandlers);

  class BenchModule {}
  Module({
    imports: [KirimbayarModule.forRoot({ webhooks: webhookOptions() })],
    controllers: [BenchController],
    providers: [PaymentHandlers],
  })(BenchModule);

  const app = await NestFactory.create(BenchModule, { rawBody: true, logger: false });
  await app.listen(port, "127.0.0.1");
}

async function fastify(port) {
  const { default: Fastify } = await import("fastify");
  const { createWebhookPlugin } = await import("@kirimbayar/fastify");
  const handRolled = createHandRolled();
  const sameChecks = createHandRolledSameChecks(processed);
  const webhooks = createWebhookPlugin(webhookOptions());
  webhooks.receivers.qris.on("payment.success", processed);
  const app = Fastify();
  app.register(webhooks, { prefix: "/webhooks" });
  app.post("/bare", async (request) => ({ ok: true, id: request.body.data?.qris_history_id }));
  // The hand-rolled route needs the raw bytes too: in its own encapsulated context, JSON bodies are read as a
  // Buffer (64 KiB, the receivers' default maxBodyBytes; 413 past it) instead of parsed, and any other content type
  // is refused 415, as core refuses it; the rest of the app keeps Fastify's parsers.
  app.register(async (scoped) => {
    scoped.removeAllContentTypeParsers();
    scoped.addContentTypeParser("application/json", { parseAs: "buffer", bodyLimit: 64 * 1024 }, (_req, body, done) =>
      done(null, body),
    );
    scoped.post("/handrolled", (request, reply) => {
      const [status, body] = handRolled(request.query.token, request.body);
      return reply.code(status).send(body);
    });
    scoped.post("/same-checks", async (request, reply) => {
      const [status, body] = await sameChecks(request.query.token, request.body);
      return reply.code(status).send(body);
    });
  });
  await app.listen({ port, host: "127.0.0.1" });
}

const servers = { express, hono, nestjs, fastify };
const [framework, port] = process.argv.slice(2);
await servers[framework](Number(port));
// The parent reads this process's CPU time around each run.
process.on("message", (message) => {
  if (message === "cpu") process.send(process.cpuUsage());
  // A clean exit (a `--cpu-prof` run writes its profile on exit).
  if (message === "exit") process.exit(0);
});
process.send("ready");
