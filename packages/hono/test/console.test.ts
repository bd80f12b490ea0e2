// The console mount over real HTTP (@hono/node-server), with a stand-in console that echoes what it got.
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { consoleApp, type MountableConsole } from "../src/index.js";

const basePath = "/kirimbayar/console";
const operator = `Basic ${btoa("ops:s3cret")}`;

interface Seen {
  method: string;
  url: string;
  contentType: string | null;
  body: string;
}

/** A stand-in for `@kirimbayar/console`: refuses without the operator's credentials, echoes, sets CSP and cookies. */
function echoConsole(): MountableConsole & { seen: Seen[] } {
  const seen: Seen[] = [];
  return {
    basePath,
    seen,
    async fetch(req) {
      if (req.headers.get("authorization") !== operator) {
        return new Response("Unauthorized", { status: 401, headers: { "www-authenticate": 'Basic realm="console"' } });
      }
      const body = req.method === "GET" || req.method === "HEAD" ? "" : await req.text();
      const entry = { method: req.method, url: req.url, contentType: req.headers.get("content-type"), body };
      seen.push(entry);
      const headers = new Headers({ "content-security-policy": "default-src 'none'" });
      headers.append("set-cookie", "kb_session=abc; HttpOnly");
      headers.append("set-cookie", "kb_csrf=def");
      if (req.method === "POST") {
        headers.set("location", `${basePath}/search?q=done`);
        return new Response(null, { status: 303, headers });
      }
      headers.set("content-type", "application/json");
      return new Response(JSON.stringify(entry), { status: 200, headers });
    },
  };
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function listen(app: Hono): Promise<string> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(started));
  });
  close = () =>
    new Promise((resolve) => {
      (server as unknown as { closeAllConnections(): void }).closeAllConnections();
      server.close(() => resolve());
    });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const form = "csrf=t0k&action=replay&id=dl-1";
const postForm = (url: string, body = form) =>
  fetch(url, {
    method: "POST",
    headers: { authorization: operator, "content-type": "application/x-www-form-urlencoded" },
    body,
    redirect: "manual",
  });

describe("consoleApp", () => {
  it("hands a GET the full URL with the mount prefix and query, and writes status, CSP and every cookie back", async () => {
    const webConsole = echoConsole();
    const origin = await listen(new Hono().route(basePath, consoleApp(webConsole)));
    const response = await fetch(`${origin}${basePath}/search?q=ORD-1`, { headers: { authorization: operator } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toBe("default-src 'none'");
    expect(response.headers.getSetCookie()).toEqual(["kb_session=abc; HttpOnly", "kb_csrf=def"]);
    expect(((await response.json()) as Seen).url).toBe(`${origin}${basePath}/search?q=ORD-1`);
    const root = await fetch(`${origin}${basePath}`, { headers: { authorization: operator } });
    expect(root.status).toBe(200);
    expect(((await root.json()) as Seen).url).toBe(`${origin}${basePath}`);
  });

  it("passes a form post's body and answers its redirect, also when a middleware read the body first", async () => {
    for (const readFirst of [false, true]) {
      const webConsole = echoConsole();
      const app = new Hono();
      if (readFirst) {
        app.use("*", async (c, next) => {
          await c.req.parseBody();
          await next();
        });
      }
      const origin = await listen(app.route(basePath, consoleApp(webConsole)));
      const response = await postForm(`${origin}${basePath}/dead-letters/replay`);
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe(`${basePath}/search?q=done`);
      expect(webConsole.seen).toEqual([
        {
          method: "POST",
          url: `${origin}${basePath}/dead-letters/replay`,
          contentType: "application/x-www-form-urlencoded",
          body: form,
        },
      ]);
      await close?.();
      close = undefined;
    }
  });

  it("refuses who the console refuses, keeps other routes, and never lets a body past the limit reach it", async () => {
    const webConsole = echoConsole();
    const app = new Hono()
      .route(basePath, consoleApp(webConsole, { maxBodyBytes: 64 }))
      .get("/shop", (c) => c.text("shop"));
    const origin = await listen(app);
    const anonymous = await fetch(`${origin}${basePath}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Basic realm="console"');
    expect(await (await fetch(`${origin}/shop`)).text()).toBe("shop");
    expect((await postForm(`${origin}${basePath}/reconcile`, `q=${"x".repeat(100)}`)).status).toBe(413);
    // Streamed without a Content-Length: counted while reading.
    const chunked = await fetch(`${origin}${basePath}/reconcile`, {
      method: "POST",
      headers: { authorization: operator, "content-type": "application/x-www-form-urlencoded" },
      body: new Blob([`q=${"y".repeat(100)}`]).stream(),
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(webConsole.seen).toEqual([]);
  });
});
