import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { createWebhookReceiver, tokenVerifier } from "@kirimbayar/core/webhooks";
import { ipAllowlist } from "@kirimbayar/core/webhooks/ip-allowlist";
import { createFixtures, toWebhookRequest } from "@kirimbayar/testing";
import Fastify, { type FastifyInstance, type FastifyServerOptions } from "fastify";
import fastifyPlugin from "fastify-plugin";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createWebhookPlugin, type WebhookPluginOptions } from "../src/index.js";
import { exchangeOnSocket, listen, secrets, seenBodies, send, sourceOptions } from "./helpers.js";

const fixtures = createFixtures({ seed: "fastify-plugin" });
const JSON_TYPE = "application/json; charset=utf-8";

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** A Fastify app with the plugin at `/webhooks` (unless `prefix` says otherwise), listening on loopback. */
async function start(
  options: WebhookPluginOptions = sourceOptions(),
  setup: { prefix?: string; fastify?: FastifyServerOptions; before?: (app: FastifyInstance) => void } = {},
) {
  const app = Fastify(setup.fastify ?? {});
  apps.push(app);
  setup.before?.(app);
  const plugin = createWebhookPlugin(options);
  app.register(plugin, { prefix: setup.prefix ?? "/webhooks" });
  const { base, port } = await listen(app);
  return { app, plugin, base, port };
}

/** Records the handler calls of every source of a plugin built from options. */
function recordCalls(plugin: ReturnType<typeof createWebhookPlugin>) {
  const calls: string[] = [];
  plugin.receivers.qris?.on("payment.success", (event) => {
    calls.push(`qris:${event.data.qris_history_id}`);
  });
  plugin.receivers.payment?.on("payment.callback", (callback) => {
    calls.push(`payment:${callback.payment_id}`);
  });
  plugin.receivers.orders?.on("order.status", (order) => {
    calls.push(`orders:${order.order_no}:${order.status}`);
  });
  return calls;
}

function qrisDelivery(base: string, token: string = secrets.qrisToken, historyId = "h-1") {
  return toWebhookRequest(fixtures.qrisPaymentSuccess({ qris_history_id: historyId }), {
    url: `${base}/webhooks/qris`,
    token,
  });
}

describe("createWebhookPlugin: deliveries", () => {
  it("answers a verified delivery 200 and runs its handler once; a duplicate gets 200 and runs nothing", async () => {
    const { plugin, base } = await start();
    const calls = recordCalls(plugin);
    const delivery = qrisDelivery(base);
    const first = await send(delivery.url, { method: "POST", headers: delivery.headers, body: delivery.rawBody });
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe(JSON_TYPE);
    expect(JSON.parse(first.text)).toMatchObject({ success: true });
    expect(calls).toEqual(["qris:h-1"]);
    const again = await send(delivery.url, { method: "POST", headers: delivery.headers, body: delivery.rawBody });
    expect(again.status).toBe(200);
    expect(JSON.parse(again.text)).toMatchObject({ success: true });
    expect(calls).toEqual(["qris:h-1"]);
  });

  it("sends core's exact answer whatever serializers the host app set, on the reply or as its default", async () => {
    const wrap = (payload: unknown) => JSON.stringify({ wrapped: payload });
    const { plugin, base } = await start(sourceOptions(), {
      before: (host) => {
        host.setReplySerializer(wrap);
        // A host hook that gives every reply its own serializer.
        host.addHook("preHandler", async (_request, reply) => {
          reply.serializer(wrap);
        });
      },
    });
    const calls = recordCalls(plugin);
    const delivery = qrisDelivery(base);
    const answer = await send(delivery.url, { method: "POST", headers: delivery.headers, body: delivery.rawBody });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe(JSON_TYPE);
    expect(answer.text).toBe(JSON.stringify({ success: true, message: "Webhook processed" }));
    expect(answer.headers.get("content-length")).toBe(String(Buffer.byteLength(answer.text)));
    expect(calls).toEqual(["qris:h-1"]);
    const forged = qrisDelivery(base, "wrong-token", "h-2");
    const refused = await send(forged.url, { method: "POST", headers: forged.headers, body: forged.rawBody });
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.text)).toMatchObject({ success: false });
    expect(refused.text).not.toContain("wrapped");
  });

  it("answers a forged token 401 without running the handler", async () => {
    const { plugin, base } = await start();
    const calls = recordCalls(plugin);
    const forged = qrisDelivery(base, "qris-token-forged");
    const response = await send(forged.url, { method: "POST", headers: forged.headers, body: forged.rawBody });
    expect(response.status).toBe(401);
    expect(JSON.parse(response.text)).toMatchObject({ success: false });
    const missing = toWebhookRequest(fixtures.qrisPaymentSuccess(), { url: `${base}/webhooks/qris` });
    expect((await send(missing.url, { method: "POST", headers: missing.headers, body: missing.rawBody })).status).toBe(
      401,
    );
    expect(calls).toEqual([]);
  });

  it("hands core the exact bytes: an HMAC-signed payment callback is verified, a changed body is not", async () => {
    const { plugin, base } = await start();
    const calls = recordCalls(plugin);
    // Spacing a JSON parser and re-serialiser would lose: the signature covers these bytes.
    const rawBody = JSON.stringify(fixtures.paymentCallback({ payment_id: "KPAY-7" }), null, 2);
    const signed = toWebhookRequest(undefined, {
      url: `${base}/webhooks/payment`,
      callbackApiKey: secrets.callbackKey,
      rawBody,
    });
    expect((await send(signed.url, { method: "POST", headers: signed.headers, body: signed.rawBody })).status).toBe(
      200,
    );
    const tampered = await send(signed.url, {
      method: "POST",
      headers: signed.headers,
      body: rawBody.replace('"KPAY-7"', '"KPAY-8"'),
    });
    expect(tampered.status).toBe(401);
    expect(calls).toEqual(["payment:KPAY-7"]);
  });

  it("accepts a gzip body, its signature checked over the decoded JSON", async () => {
    const { plugin, base } = await start();
    const calls = recordCalls(plugin);
    const signed = toWebhookRequest(fixtures.paymentCallback({ payment_id: "KPAY-GZ" }), {
      url: `${base}/webhooks/payment`,
      callbackApiKey: secrets.callbackKey,
    });
    const response = await send(signed.url, {
      method: "POST",
      headers: { ...signed.headers, "content-encoding": "gzip" },
      body: gzipSync(signed.rawBody),
    });
    expect(response.status).toBe(200);
    expect(calls).toEqual(["payment:KPAY-GZ"]);
  });

  it("serves orders by POST and by PUT", async () => {
    const { plugin, base } = await start();
    const calls = recordCalls(plugin);
    for (const [method, status] of [
      ["POST", "Dijemput"],
      ["PUT", "Dikirim"],
    ] as const) {
      const delivery = toWebhookRequest(fixtures.orderStatus({ order_no: "ORD-1", status }), {
        url: `${base}/webhooks/orders`,
        token: secrets.ordersToken,
        method,
      });
      expect((await send(delivery.url, { method, headers: delivery.headers, body: delivery.rawBody })).status).toBe(
        200,
      );
    }
    expect(calls).toEqual(["orders:ORD-1:Dijemput", "orders:ORD-1:Dikirim"]);
  });
});

describe("createWebhookPlugin: core's HTTP contract through Fastify", () => {
  it("lets every method reach core: 405 with Allow for GET, HEAD, DELETE and PATCH", async () => {
    const { base } = await start();
    const url = `${base}/webhooks/qris?token=${secrets.qrisToken}`;
    for (const method of ["GET", "DELETE", "PATCH"]) {
      const response = await send(url, { method });
      expect(response.status, method).toBe(405);
      expect(response.headers.get("allow"), method).toBe("POST");
      expect(JSON.parse(response.text), method).toMatchObject({
        success: false,
        message: expect.stringMatching(/POST/),
      });
    }
    const head = await send(url, { method: "HEAD" });
    expect(head.status).toBe(405);
    expect(head.headers.get("allow")).toBe("POST");
    const orders = await send(`${base}/webhooks/orders?token=${secrets.ordersToken}`, { method: "GET" });
    expect(orders.headers.get("allow")).toBe("POST, PUT");
  });

  it("answers a method Fastify checks itself (QUERY without a content type) with core's 405", async () => {
    const { app } = await start();
    const response = await app.inject({ method: "QUERY", url: `/webhooks/qris?token=${secrets.qrisToken}` });
    seenBodies.push(response.body);
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe("POST");
    expect(response.json()).toMatchObject({ success: false });
  });

  it("answers a wrong content type with core's 415, also one Fastify cannot parse", async () => {
    const { plugin, base } = await start();
    const calls = recordCalls(plugin);
    const delivery = qrisDelivery(base);
    for (const contentType of ["text/plain", "application/x-www-form-urlencoded", "nonsense", "multipart/form-data"]) {
      const response = await send(delivery.url, {
        method: "POST",
        headers: { ...delivery.headers, "content-type": contentType },
        body: delivery.rawBody,
      });
      expect(response.status, contentType).toBe(415);
      expect(response.headers.get("content-type"), contentType).toBe(JSON_TYPE);
      expect(JSON.parse(response.text), contentType).toEqual({
        success: false,
        message: "Unsupported content type: send application/json",
      });
    }
    expect(calls).toEqual([]);
  });

  it("hands a body without a content type to core, which decides (allowMissingContentType)", async () => {
    const untyped = (base: string) => {
      const delivery = qrisDelivery(base, secrets.qrisToken, "h-untyped");
      // A Blob without a type: fetch sends no Content-Type header at all.
      return send(delivery.url, { method: "POST", body: new Blob([delivery.rawBody]) });
    };
    const lenient = await start();
    const calls = recordCalls(lenient.plugin);
    expect((await untyped(lenient.base)).status).toBe(200);
    expect(calls).toEqual(["qris:h-untyped"]);
    const strict = await start({ qris: { ...sourceOptions().qris, allowMissingContentType: false } });
    const refused = await untyped(strict.base);
    expect(refused.status).toBe(415);
    expect(JSON.parse(refused.text)).toMatchObject({ success: false });
  });

  it("refuses a declared oversize 413 at once, without reading the body, and closes the connection", async () => {
    const { plugin, port } = await start(sourceOptions({ maxBodyBytes: 1_000, bodyReadTimeoutMs: 5_000 }));
    const calls = recordCalls(plugin);
    // Headers only: the body is never sent, so only an answer given before reading can arrive.
    const answer = await exchangeOnSocket(
      port,
      `POST /webhooks/qris?token=${secrets.qrisToken} HTTP/1.1\r\nhost: 127.0.0.1\r\n` +
        "content-type: application/json\r\ncontent-length: 1000000\r\n",
    );
    expect(answer.status).toBe(413);
    expect(answer.headers.connection).toBe("close");
    expect(answer.headers["content-type"]).toBe(JSON_TYPE);
    expect(JSON.parse(answer.body)).toEqual({ success: false, message: "Body is larger than 1000 bytes" });
    expect(answer.elapsedMs).toBeLessThan(2_000);
    expect(answer.closedByServer).toBe(true);
    expect(calls).toEqual([]);
  });

  it("counts a chunked body past maxBodyBytes and answers 413", async () => {
    const { base } = await start(sourceOptions({ maxBodyBytes: 1_000 }));
    const response = await send(`${base}/webhooks/qris?token=${secrets.qrisToken}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new Blob([`"${"x".repeat(50_000)}"`]).stream(),
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
  });

  it("answers a stalled body 408 after bodyReadTimeoutMs and closes the connection", async () => {
    const { plugin, port } = await start(sourceOptions({ bodyReadTimeoutMs: 300 }));
    const calls = recordCalls(plugin);
    const answer = await exchangeOnSocket(
      port,
      `POST /webhooks/qris?token=${secrets.qrisToken} HTTP/1.1\r\nhost: 127.0.0.1\r\n` +
        "content-type: application/json\r\ncontent-length: 1000\r\n",
      '{"event":"payment.',
    );
    expect(answer.status).toBe(408);
    expect(answer.headers.connection).toBe("close");
    expect(JSON.parse(answer.body)).toEqual({
      success: false,
      message: "The request body did not arrive within 300 ms",
    });
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(250);
    expect(answer.elapsedMs).toBeLessThan(3_000);
    expect(answer.closedByServer).toBe(true);
    expect(calls).toEqual([]);
  });

  it("keeps the connection alive after a normal answer", async () => {
    const { app, plugin, port } = await start();
    const calls = recordCalls(plugin);
    const body = JSON.stringify(fixtures.qrisPaymentSuccess({ qris_history_id: "h-keep" }));
    const closed = exchangeOnSocket(
      port,
      `POST /webhooks/qris?token=${secrets.qrisToken} HTTP/1.1\r\nhost: 127.0.0.1\r\n` +
        `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`,
      body,
    );
    // The socket stays open after the 200 (kept alive), so the exchange only ends when the app closes.
    const outcome = await Promise.race([closed, new Promise((resolve) => setTimeout(() => resolve("open"), 500))]);
    expect(outcome).toBe("open");
    await app.close();
    const answer = await closed;
    expect(answer.status).toBe(200);
    expect(answer.headers.connection).toBe("keep-alive");
    expect(calls).toEqual(["qris:h-keep"]);
  });

  it("is not limited by Fastify's bodyLimit: the receiver's maxBodyBytes decides", async () => {
    const { plugin, base } = await start(sourceOptions({ maxBodyBytes: 200_000 }), { fastify: { bodyLimit: 1_024 } });
    const calls = recordCalls(plugin);
    const delivery = toWebhookRequest(fixtures.orderStatus({ order_no: "ORD-BIG", status: "Dikirim" }), {
      url: `${base}/webhooks/orders`,
      token: secrets.ordersToken,
      rawBody: JSON.stringify({ order_no: "ORD-BIG", cnote: "JP1", status: "Dikirim", note: "x".repeat(100_000) }),
    });
    const response = await send(delivery.url, { method: "POST", headers: delivery.headers, body: delivery.rawBody });
    expect(response.status).toBe(200);
    expect(calls).toEqual(["orders:ORD-BIG:Dikirim"]);
    // The same body over the receiver's own limit: core's 413, not Fastify's.
    const { base: small } = await start(sourceOptions({ maxBodyBytes: 50_000 }), { fastify: { bodyLimit: 1_024 } });
    const refused = await send(`${small}/webhooks/orders?token=${secrets.ordersToken}`, {
      method: "POST",
      headers: delivery.headers,
      body: delivery.rawBody,
    });
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.text)).toEqual({ success: false, message: "Body is larger than 50000 bytes" });
  });
});

describe("createWebhookPlugin: in the host app", () => {
  // A global preParsing hook that reads the body first, as fastify-raw-body does: the plugin's parser finds the
  // stream ended and takes the bytes the hook kept, or answers 500 naming the problem when it kept none.
  function consumingHook(keep: boolean) {
    return (host: FastifyInstance) => {
      host.addHook("preParsing", async (request, _reply, payload) => {
        const chunks: Buffer[] = [];
        for await (const chunk of payload) chunks.push(chunk as Buffer);
        const body = Buffer.concat(chunks);
        if (keep) (request as typeof request & { rawBody?: Buffer }).rawBody = body;
        return Readable.from([body]);
      });
    };
  }

  it("takes the bytes a host hook that consumed the body kept on request.rawBody", async () => {
    const { plugin, base } = await start(sourceOptions(), { before: consumingHook(true) });
    const calls = recordCalls(plugin);
    const delivery = qrisDelivery(base, secrets.qrisToken, "hooked-1");
    const response = await send(delivery.url, { method: "POST", headers: delivery.headers, body: delivery.rawBody });
    expect(response.status).toBe(200);
    expect(calls).toEqual(["qris:hooked-1"]);
  });

  it("answers 500 naming the problem, and runs nothing, when a host hook consumed the body and kept no bytes", async () => {
    const { plugin, base } = await start(sourceOptions(), { before: consumingHook(false) });
    const calls = recordCalls(plugin);
    const delivery = qrisDelivery(base, secrets.qrisToken, "hooked-2");
    const response = await send(delivery.url, { method: "POST", headers: delivery.headers, body: delivery.rawBody });
    expect(response.status).toBe(500);
    expect(JSON.parse(response.text).message).toMatch(/rawBody/);
    expect(calls).toEqual([]);
  });

  it("leaves the host app's JSON parsing elsewhere untouched", async () => {
    const parsedBodies: unknown[] = [];
    const { app, plugin, base } = await start(sourceOptions(), {
      before: (host) => {
        host.post("/api/x", async (request) => {
          parsedBodies.push(request.body);
          return { got: request.body };
        });
        host.register(
          async (scoped) => {
            scoped.post("/y", async (request) => ({ got: request.body }));
          },
          { prefix: "/api/scoped" },
        );
      },
    });
    const calls = recordCalls(plugin);
    const api = await send(`${base}/api/x`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ sku: "KAOS-1", qty: 2 }),
    });
    expect(api.status).toBe(200);
    expect(JSON.parse(api.text)).toEqual({ got: { sku: "KAOS-1", qty: 2 } });
    expect(parsedBodies).toEqual([{ sku: "KAOS-1", qty: 2 }]);
    const scoped = await send(`${base}/api/scoped/y`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "hello",
    });
    expect(JSON.parse(scoped.text)).toEqual({ got: "hello" });
    // The host keeps its own limits and errors: Fastify's 400 for malformed JSON on its routes.
    const malformed = await send(`${base}/api/x`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{nope",
    });
    expect(malformed.status).toBe(400);
    expect(app.hasContentTypeParser("application/json")).toBe(true);
    // And deliveries still work beside it.
    const delivery = qrisDelivery(base, secrets.qrisToken, "h-host");
    expect(
      (await send(delivery.url, { method: "POST", headers: delivery.headers, body: delivery.rawBody })).status,
    ).toBe(200);
    expect(calls).toEqual(["qris:h-host"]);
  });

  it("works under any prefix, or none, and at custom sub-paths", async () => {
    const orders = createWebhookReceiver({
      source: "orders",
      verify: [tokenVerifier({ secrets: [secrets.ordersToken], in: "query", name: "token" })],
    });
    const seen = vi.fn();
    orders.on("order.status", seen);
    const body = JSON.stringify(fixtures.orderStatus());
    const post = (url: string) =>
      send(`${url}?token=${secrets.ordersToken}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
    const nested = await start({ orders }, { prefix: "/api/v1/hooks" });
    expect((await post(`${nested.base}/api/v1/hooks/orders`)).status).toBe(200);
    const root = await start({ orders }, { prefix: "" });
    expect((await post(`${root.base}/orders`)).status).toBe(200);
    const custom = await start({ orders, paths: { orders: "/shipping-status" } });
    expect((await post(`${custom.base}/webhooks/shipping-status`)).status).toBe(200);
    // Fastify's own 404 (not the plugin's): it echoes the URL, so it is sent without the token.
    expect((await fetch(`${custom.base}/webhooks/orders`, { method: "POST", body })).status).toBe(404);
    // The first delivery ran the handler; the same body again is a duplicate everywhere (one receiver, one store).
    expect(seen).toHaveBeenCalledOnce();
  });

  it("exposes the receivers it built from options, and mounts only the configured sources", async () => {
    const plugin = createWebhookPlugin({
      orders: { verify: [tokenVerifier({ secrets: [secrets.ordersToken], in: "query", name: "token" })] },
    });
    expect(plugin.receivers.orders).toBeDefined();
    expect(plugin.receivers.qris).toBeUndefined();
    expect(plugin.receivers.payment).toBeUndefined();
    const shipped = vi.fn();
    plugin.receivers.orders?.onOrderStatus("Dikirim", shipped);
    const app = Fastify();
    apps.push(app);
    app.register(plugin, { prefix: "/hooks" });
    const { base } = await listen(app);
    const order = JSON.stringify({ order_no: "ORD-9", cnote: "JP9", status: "Dikirim" });
    const response = await send(`${base}/hooks/orders?token=${secrets.ordersToken}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: order,
    });
    expect(response.status).toBe(200);
    expect(shipped).toHaveBeenCalledWith(expect.objectContaining({ order_no: "ORD-9" }), expect.anything());
    expect((await fetch(`${base}/hooks/qris`, { method: "POST", body: "{}" })).status).toBe(404);
  });

  it("keeps a receiver passed ready as the same object", () => {
    const qris = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: [secrets.qrisToken], in: "query", name: "token" })],
    });
    expect(createWebhookPlugin({ qris }).receivers.qris).toBe(qris);
  });

  it("refuses a bad configuration when the plugin is created, not at the first delivery", () => {
    const orders = { verify: [tokenVerifier({ secrets: [secrets.ordersToken], in: "query", name: "token" })] };
    expect(() => createWebhookPlugin({ orders, paths: { orders: "shipping-status" } })).toThrow(
      /paths\.orders must be a path starting with "\/"/,
    );
    expect(() => createWebhookPlugin({ orders: {} as never })).toThrow();
    expect(() => createWebhookPlugin({ ...sourceOptions(), paths: { qris: "/hooks", orders: "/hooks" } })).toThrow(
      /paths\.orders: \/hooks is already the path of qris/,
    );
  });

  it("rejects ready() when the app already has a route at one of its paths", async () => {
    const app = Fastify();
    apps.push(app);
    app.post("/webhooks/qris", async () => "mine");
    app.register(createWebhookPlugin(sourceOptions()), { prefix: "/webhooks" });
    await expect(app.ready()).rejects.toThrow(/already declared/);
  });

  it("passes the socket's peer address to core (IP allowlist), or the one getRemoteAddress returns", async () => {
    const allowOnly = (allow: string) =>
      createWebhookReceiver({ source: "orders", verify: [ipAllowlist({ allow: [allow] })] }).on(
        "order.status",
        () => {},
      );
    const body = JSON.stringify(fixtures.orderStatus());
    const post = (base: string) =>
      send(`${base}/webhooks/orders`, { method: "POST", headers: { "content-type": "application/json" }, body });
    expect((await post((await start({ orders: allowOnly("127.0.0.1/8") })).base)).status).toBe(200);
    expect((await post((await start({ orders: allowOnly("203.0.113.0/24") })).base)).status).toBe(401);
    const behindProxy = await start(
      { orders: allowOnly("203.0.113.0/24"), getRemoteAddress: (request) => request.ip },
      { fastify: { trustProxy: true } },
    );
    const forwarded = await send(`${behindProxy.base}/webhooks/orders`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.7" },
      body,
    });
    expect(forwarded.status).toBe(200);
  });

  it("hands a getRemoteAddress that throws to the host's error handler, runs nothing, and keeps serving", async () => {
    // The body is read in the stream's listeners: a throw there must become the request's error, not the process's.
    let fail = true;
    const { plugin, base } = await start({
      ...sourceOptions(),
      getRemoteAddress: (request) => {
        if (fail) throw new Error("no peer address behind this proxy");
        return request.socket.remoteAddress;
      },
    });
    const calls = recordCalls(plugin);
    const delivery = qrisDelivery(base, secrets.qrisToken, "h-remote");
    const post = () => send(delivery.url, { method: "POST", headers: delivery.headers, body: delivery.rawBody });
    const failed = await post();
    expect(failed.status).toBe(500);
    expect(JSON.parse(failed.text)).toMatchObject({ message: "no peer address behind this proxy" });
    expect(calls).toEqual([]);
    fail = false;
    expect((await post()).status).toBe(200);
    expect(calls).toEqual(["qris:h-remote"]);
  });

  it("uses the bytes a host preParsing hook kept on request.rawBody after consuming the stream", async () => {
    const { plugin, base } = await start(sourceOptions(), {
      before: (host) => {
        // What fastify-raw-body does globally: read the whole payload in preParsing, keep it, hand on a copy.
        host.register(
          fastifyPlugin(async (instance) => {
            instance.addHook("preParsing", async (request, _reply, payload) => {
              const chunks: Buffer[] = [];
              for await (const chunk of payload) chunks.push(chunk as Buffer);
              (request as typeof request & { rawBody?: Buffer }).rawBody = Buffer.concat(chunks);
              const { Readable } = await import("node:stream");
              return Readable.from([Buffer.concat(chunks)]);
            });
          }),
        );
      },
    });
    const calls = recordCalls(plugin);
    const signed = toWebhookRequest(fixtures.paymentCallback({ payment_id: "KPAY-HOOK" }), {
      url: `${base}/webhooks/payment`,
      callbackApiKey: secrets.callbackKey,
    });
    const response = await send(signed.url, { method: "POST", headers: signed.headers, body: signed.rawBody });
    expect(response.status).toBe(200);
    expect(calls).toEqual(["payment:KPAY-HOOK"]);
  });

  it("leaves errors that are not Fastify's refusals of the request to the host's error handler", async () => {
    const { base } = await start(sourceOptions(), {
      before: (host) => {
        host.setErrorHandler((error: Error, _request, reply) => {
          reply.code(418).send({ host: true, message: error.message });
        });
        host.addHook("onRequest", async (request) => {
          if (request.headers["x-block"] === "1") throw new Error("blocked by the host");
        });
      },
    });
    const delivery = qrisDelivery(base, secrets.qrisToken, "h-blocked");
    const blocked = await send(delivery.url, {
      method: "POST",
      headers: { ...delivery.headers, "x-block": "1" },
      body: delivery.rawBody,
    });
    expect(blocked.status).toBe(418);
    expect(JSON.parse(blocked.text)).toEqual({ host: true, message: "blocked by the host" });
  });

  it("refuses to register on a Fastify other than 5", async () => {
    const plugin = createWebhookPlugin(sourceOptions());
    const app = Fastify();
    apps.push(app);
    Object.defineProperty(app, "version", { value: "4.28.1" });
    app.register(plugin);
    await expect(app.ready()).rejects.toThrow(/expected '5\.x' fastify version, '4\.28\.1' is installed/);
  });
});

describe("createWebhookPlugin: secrets", () => {
  it("shows no secret in any response body of this file", () => {
    expect(seenBodies.length).toBeGreaterThan(20);
    for (const body of seenBodies) {
      for (const secret of Object.values(secrets)) expect(body).not.toContain(secret);
    }
  });
});
