// The real webhook console (@kirimbayar/console) mounted by each adapter in one line, over real HTTP on loopback:
// Express 5, Hono on @hono/node-server, Fastify, and the NestJS module on Express and on Fastify. Each must hand the
// console the URL as the browser sees it (its same-origin check compares the `Origin` header with it) and the form
// body of a POST, and give back its answer unchanged; the console's authorize, CSRF and origin checks still refuse.
import "reflect-metadata";
import type { Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { serve } from "@hono/node-server";
import { createWebhookConsole, type WebhookConsole } from "@kirimbayar/console";
import type { PendingReference } from "@kirimbayar/core";
import { MemoryDeliveryJournal } from "@kirimbayar/core/journal";
import { consoleRouter } from "@kirimbayar/express";
import { consolePlugin } from "@kirimbayar/fastify";
import { consoleApp } from "@kirimbayar/hono";
import { KirimbayarModule } from "@kirimbayar/nestjs";
import { FastifyAdapter, type NestFastifyApplication } from "@nestjs/platform-fastify";
import { Test } from "@nestjs/testing";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";

const BASE_PATH = "/kirimbayar/console";
const PASSWORD = "console-password-for-the-adapters";
const operator = `Basic ${btoa(`operator:${PASSWORD}`)}`;

/** The real console, with a reconciler that records what it was asked (the console's one action without an inbox). */
function realConsole(): { webConsole: WebhookConsole; asked: PendingReference[][]; authorized: () => number } {
  const asked: PendingReference[][] = [];
  let authorized = 0;
  const webConsole = createWebhookConsole({
    journal: new MemoryDeliveryJournal(),
    basePath: BASE_PATH,
    authorize: (request) => {
      authorized++;
      return request.headers.get("authorization") === operator ? "operator" : false;
    },
    unauthorizedChallenge: 'Basic realm="console"',
    reconciler: {
      async reconcile(references) {
        asked.push([...references]);
        return references.map((reference) => ({ reference, outcome: "pending" as const }));
      },
    },
    sources: ["qris", "payment"],
  });
  return { webConsole, asked, authorized: () => authorized };
}

/**
 * Sends one request as raw bytes (fetch would refuse a malformed Host) and reads the whole answer: its status and
 * body. Bounded: the socket is given up after 5 s.
 */
function rawRequest(origin: string, head: string): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    // Written, not ended: a server may drop a request whose client half-closed first. `Connection: close` ends it.
    const socket = connect(Number(port), hostname, () => socket.write(head));
    const chunks: Buffer[] = [];
    socket.setTimeout(5_000, () => socket.destroy(new Error("no answer within 5 s")));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0), text });
    });
  });
}

/** Host headers no console may stand on: spaces, an unclosed IPv6 literal, user info, a path, a bad port. */
const MALFORMED_HOSTS = ["a b", "[::1", "a@b", "evil.example/x", "a:99999", "[zz]", "a\\b", "%41"];

/** Serves `webConsole` on 127.0.0.1 through one adapter; resolves the origin and how to stop it. */
type Mount = (webConsole: WebhookConsole) => Promise<{ origin: string; close(): Promise<void> }>;

const originOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const mounts: Record<string, Mount> = {
  async express(webConsole) {
    // The app's own parsers first, as most apps have them: they must not break the console's form posts.
    const app = express()
      .use(express.json())
      .use(express.urlencoded({ extended: true }));
    app.use(webConsole.basePath, consoleRouter(webConsole));
    const server = await new Promise<Server>((resolve) => {
      const started = app.listen(0, "127.0.0.1", () => resolve(started));
    });
    return { origin: originOf(server), close: () => closeServer(server) };
  },
  async hono(webConsole) {
    const app = new Hono().route(webConsole.basePath, consoleApp(webConsole));
    const server = await new Promise<Server>((resolve) => {
      const started = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () =>
        resolve(started as unknown as Server),
      );
    });
    return { origin: originOf(server), close: () => closeServer(server) };
  },
  async fastify(webConsole) {
    const app = Fastify();
    await app.register(consolePlugin, { console: webConsole });
    const origin = await app.listen({ port: 0, host: "127.0.0.1" });
    return { origin, close: () => app.close() };
  },
  "nestjs (express)": (webConsole) => nest(webConsole, "express"),
  "nestjs (fastify)": (webConsole) => nest(webConsole, "fastify"),
};

async function nest(webConsole: WebhookConsole, platform: "express" | "fastify") {
  const moduleRef = await Test.createTestingModule({
    imports: [KirimbayarModule.forRoot({ console: { handler: webConsole } })],
  }).compile();
  const app =
    platform === "express"
      ? moduleRef.createNestApplication({ logger: false, rawBody: true })
      : moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
  await app.listen(0, "127.0.0.1");
  return { origin: originOf(app.getHttpServer() as Server), close: () => app.close() };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

/** Posts the reconcile form as the console's page would (same origin unless `origin` says otherwise). */
function postReconcile(origin: string, fields: Record<string, string>, from = origin): Promise<Response> {
  return fetch(`${origin}${BASE_PATH}/actions/reconcile`, {
    method: "POST",
    headers: { authorization: operator, origin: from, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
}

describe.each(Object.keys(mounts))("the webhook console mounted by %s", (name) => {
  it("serves its pages under the base path with the strict CSP, and asks who you are first", async () => {
    const { webConsole } = realConsole();
    const server = await (mounts[name] as Mount)(webConsole);
    stop = server.close;
    const anonymous = await fetch(`${server.origin}${BASE_PATH}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Basic realm="console"');
    for (const path of ["", "/", "/search?q=ORD-1", "/dead-letters"]) {
      const page = await fetch(`${server.origin}${BASE_PATH}${path}`, { headers: { authorization: operator } });
      expect(page.status, path).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expect(page.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
      expect(await page.text()).toContain("Webhook console");
    }
    const elsewhere = await fetch(`${server.origin}${BASE_PATH}/no-such-page`, {
      headers: { authorization: operator },
    });
    expect(elsewhere.status).toBe(404);
  });

  it("answers a malformed Host 400, before authorize runs, with no stack trace", async () => {
    const { webConsole, authorized } = realConsole();
    const server = await (mounts[name] as Mount)(webConsole);
    stop = server.close;
    for (const host of MALFORMED_HOSTS) {
      for (const method of ["GET", "POST"]) {
        const body = method === "POST" ? "csrf=x&source=qris&reference=R" : "";
        const answer = await rawRequest(
          server.origin,
          `${method} ${BASE_PATH}${method === "POST" ? "/actions/reconcile" : ""} HTTP/1.1\r\nHost: ${host}\r\n` +
            `Authorization: ${operator}\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
            `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
        );
        expect(answer.status, `${method} Host: ${host}\n${answer.text}`).toBe(400);
        expect(answer.text).not.toMatch(/\bat \S+ \(|node_modules|\/src\/|\.[cm]?[jt]s:\d+/);
      }
    }
    expect(authorized()).toBe(0);
    // A well-formed Host still reaches the console (and its authorize).
    const fine = await rawRequest(
      server.origin,
      `GET ${BASE_PATH} HTTP/1.1\r\nHost: shop.example:8080\r\nAuthorization: ${operator}\r\nConnection: close\r\n\r\n`,
    );
    expect(fine.status).toBe(200);
    expect(authorized()).toBe(1);
  });

  it("takes a form post from its own page (CSRF token and origin pass), and refuses forged ones", async () => {
    const { webConsole, asked } = realConsole();
    const server = await (mounts[name] as Mount)(webConsole);
    stop = server.close;
    const page = await fetch(`${server.origin}${BASE_PATH}`, { headers: { authorization: operator } });
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1];
    expect(csrf).toBeDefined();
    const fields = { csrf: csrf ?? "", source: "qris", reference: "QR-HISTORY-7" };

    const posted = await postReconcile(server.origin, fields);
    expect(posted.status).toBe(303);
    expect(posted.headers.get("location")).toMatch(/^\/kirimbayar\/console\//);
    expect(asked).toEqual([[{ source: "qris", history_id: "QR-HISTORY-7" }]]);

    expect((await postReconcile(server.origin, { ...fields, csrf: "forged" })).status).toBe(403);
    expect((await postReconcile(server.origin, fields, "http://evil.example")).status).toBe(403);
    expect(asked).toHaveLength(1);
  });
});
