// The in-process helpers' transport: a Web Request in, the app's answer out as a Response, bytes and headers intact.
// Here against a bare Node request listener, a Node http.Server and a real Hono app; the real frameworks with the
// kirimbayar adapters receiving the fake's webhooks are in tests/in-process.
import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { PaymentGatewayClient } from "@kirimbayar/core";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { expressFetch } from "../src/express.js";
import { fastifyFetch } from "../src/fastify.js";
import { honoFetch } from "../src/hono.js";
import { createFakeProvider } from "../src/index.js";
import { nestFetch } from "../src/nestjs.js";
import { validPayment } from "./helpers.js";

interface Seen {
  method: string;
  url: string;
  host: string | undefined;
  contentType: string | undefined;
  remoteAddress: string | undefined;
  body: Buffer;
}

/** A Node request listener that records what it got and answers as `answer` says. */
function recordingListener(answer: (seen: Seen, res: ServerResponse) => void = defaultAnswer) {
  const seen: Seen[] = [];
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const record: Seen = {
        method: req.method ?? "",
        url: req.url ?? "",
        host: req.headers.host,
        contentType: req.headers["content-type"],
        remoteAddress: req.socket.remoteAddress,
        body: Buffer.concat(chunks),
      };
      seen.push(record);
      answer(record, res);
    });
  };
  return { seen, listener };
}

function defaultAnswer(_seen: Seen, res: ServerResponse) {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ success: true, message: "ok" }));
}

// Every byte value, and text that is not ASCII: what a signature is computed over must arrive unchanged.
const BYTES = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from("Rp 150.000 ✓")]);

describe("expressFetch (a Node request listener or http.Server)", () => {
  it("hands the app the method, path, query, host and exact body bytes, and returns its answer", async () => {
    const { seen, listener } = recordingListener((_record, res) => {
      res.setHeader("set-cookie", ["a=1; Path=/", "b=2; Path=/"]);
      res.writeHead(201, "Made It", { "content-type": "application/octet-stream", "x-extra": "yes" });
      res.end(BYTES);
    });
    const fetchApp = expressFetch(listener);
    const response = await fetchApp("https://shop.test/webhooks/qris?token=t%20k&x=1", {
      method: "POST",
      headers: { "content-type": "application/octet-stream" },
      body: BYTES,
    });
    expect(seen).toEqual([
      {
        method: "POST",
        url: "/webhooks/qris?token=t%20k&x=1",
        host: "shop.test",
        contentType: "application/octet-stream",
        remoteAddress: "127.0.0.1",
        body: BYTES,
      },
    ]);
    expect(response.status).toBe(201);
    expect(response.statusText).toBe("Made It");
    expect(response.headers.get("x-extra")).toBe("yes");
    expect(response.headers.getSetCookie()).toEqual(["a=1; Path=/", "b=2; Path=/"]);
    expect(Buffer.from(await response.arrayBuffer())).toEqual(BYTES);
  });

  it("answers 204, 304 and HEAD without a body, and takes a Request as fetch does", async () => {
    const statuses = [204, 304, 200];
    const { listener } = recordingListener((_record, res) => {
      res.writeHead(statuses.shift() ?? 500, { "content-length": "0" });
      res.end();
    });
    const fetchApp = expressFetch(listener);
    for (const expected of [204, 304]) {
      const response = await fetchApp(new Request("http://shop.test/x", { method: "DELETE" }));
      expect([response.status, response.body]).toEqual([expected, null]);
    }
    const head = await fetchApp("http://shop.test/x", { method: "HEAD" });
    expect([head.status, head.body]).toEqual([200, null]);
  });

  it("passes remoteAddress, and sends requests to every request listener of an http.Server", async () => {
    const { seen, listener } = recordingListener();
    const server = createServer(listener);
    const alsoSeen: string[] = [];
    server.on("request", (req: IncomingMessage) => alsoSeen.push(req.url ?? ""));
    const fetchApp = expressFetch(server, { remoteAddress: "203.0.113.7" });
    const response = await fetchApp("http://shop.test/webhooks/orders?token=o", { method: "PUT", body: "{}" });
    expect(await response.json()).toEqual({ success: true, message: "ok" });
    expect(seen[0]?.remoteAddress).toBe("203.0.113.7");
    expect(alsoSeen).toEqual(["/webhooks/orders?token=o"]);
    expect(server.listening).toBe(false);
  });

  it("carries the fake's signed payment callback with its HMAC intact", async () => {
    const key = "callback-key-0123456789";
    const { seen, listener } = recordingListener();
    const provider = createFakeProvider({ webhooks: { fetch: expressFetch(listener) } });
    const payments = new PaymentGatewayClient({
      apiKey: provider.apiKeys.payment[0]!,
      baseUrl: provider.baseUrl,
      fetch: provider.fetch,
    });
    const body = validPayment({ callback_url: "https://shop.test/webhooks/payment", callback_api_key: key });
    const { data } = await payments.createPayment(body as never);
    await provider.payments.pay(String(data.payment_id));
    const [delivery] = provider.deliveries;
    expect(delivery).toMatchObject({ status: 200, acknowledged: true });
    expect(seen[0]?.body.toString("utf8")).toBe(delivery?.body);
    expect(delivery?.headers["x-callback-api-key"]).toBe(
      createHmac("sha256", key)
        .update(seen[0]?.body ?? "")
        .digest("hex"),
    );
  });

  it("refuses what is not an app, naming what it wants", () => {
    expect(() => expressFetch(42 as never)).toThrow(/needs an Express app/);
  });
});

describe("honoFetch", () => {
  it("runs the app's routes with the exact bytes and its env, and returns its Response", async () => {
    const app = new Hono<{ Bindings: { shop: string } }>().post("/webhooks/:source", async (c) => {
      const bytes = new Uint8Array(await c.req.arrayBuffer());
      return c.json({
        source: c.req.param("source"),
        token: c.req.query("token"),
        size: bytes.length,
        shop: c.env.shop,
      });
    });
    const fetchApp = honoFetch(app, { env: { shop: "toko" } });
    const response = await fetchApp("http://shop.test/webhooks/qris?token=t", { method: "POST", body: BYTES });
    expect(await response.json()).toEqual({ source: "qris", token: "t", size: BYTES.length, shop: "toko" });
  });

  it("is the fake's transport, also when set after creation with setFetch", async () => {
    const received: string[] = [];
    const app = new Hono().post("/webhooks/orders", async (c) => {
      received.push(await c.req.text());
      return c.text("OK");
    });
    const provider = createFakeProvider({ webhooks: { ordersUrl: "http://shop.test/webhooks/orders" } });
    provider.webhooks.setFetch(honoFetch(app));
    const order = provider.orders.create();
    await provider.orders.setStatus(order.orderNo, "Dikirim");
    expect(received.map((body) => JSON.parse(body))).toEqual([
      { order_no: order.orderNo, cnote: order.cnote, status: "Dikirim" },
    ]);
    expect(provider.deliveries[0]).toMatchObject({ status: 200, acknowledged: true });
    expect(() => honoFetch({} as never)).toThrow(/needs a Hono app/);
  });
});

describe("fastifyFetch and nestFetch arguments", () => {
  it("refuse what is not an app, and a Nest platform they cannot reach", async () => {
    expect(() => fastifyFetch({} as never)).toThrow(/needs a Fastify instance/);
    expect(() => nestFetch({} as never)).toThrow(/needs a Nest application/);
    const koa = {
      getHttpAdapter: () => ({ getType: () => "koa", getInstance: () => ({}) }),
      getHttpServer: () => ({}),
    };
    await expect(nestFetch(koa)("http://shop.test/")).rejects.toThrow(/Express and Fastify platforms; .*"koa"/);
  });
});
