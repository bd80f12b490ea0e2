// The console mount over real HTTP (@hono/node-server), with a stand-in console that echoes what it got.
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import {
  createStandInConsole,
  postStandInForm,
  STAND_IN_CONSOLE,
  type StandInConsoleRequest,
  standInFormPost,
} from "@kirimbayar/testing";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { consoleApp } from "../src/index.js";

const { basePath, authorization: operator, cookies, contentSecurityPolicy } = STAND_IN_CONSOLE;

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

describe("consoleApp", () => {
  it("hands a GET the full URL with the mount prefix and query, and writes status, CSP and every cookie back", async () => {
    const webConsole = createStandInConsole();
    const origin = await listen(new Hono().route(basePath, consoleApp(webConsole)));
    const response = await fetch(`${origin}${basePath}/search?q=ORD-1`, { headers: { authorization: operator } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toBe(contentSecurityPolicy);
    expect(response.headers.getSetCookie()).toEqual(cookies);
    expect(((await response.json()) as StandInConsoleRequest).url).toBe(`${origin}${basePath}/search?q=ORD-1`);
    const root = await fetch(`${origin}${basePath}`, { headers: { authorization: operator } });
    expect(root.status).toBe(200);
    expect(((await root.json()) as StandInConsoleRequest).url).toBe(`${origin}${basePath}`);
  });

  it("passes a form post's body and answers its redirect, also when a middleware read the body first", async () => {
    for (const readFirst of [false, true]) {
      const webConsole = createStandInConsole();
      const app = new Hono();
      if (readFirst) {
        app.use("*", async (c, next) => {
          await c.req.parseBody();
          await next();
        });
      }
      const origin = await listen(app.route(basePath, consoleApp(webConsole)));
      const response = await postStandInForm(`${origin}${basePath}/dead-letters/replay`);
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe(STAND_IN_CONSOLE.redirectLocation);
      expect(webConsole.seen).toEqual([standInFormPost(`${origin}${basePath}/dead-letters/replay`)]);
      await close?.();
      close = undefined;
    }
  });

  it("refuses who the console refuses, keeps other routes, and never lets a body past the limit reach it", async () => {
    const webConsole = createStandInConsole();
    const app = new Hono()
      .route(basePath, consoleApp(webConsole, { maxBodyBytes: 64 }))
      .get("/shop", (c) => c.text("shop"));
    const origin = await listen(app);
    const anonymous = await fetch(`${origin}${basePath}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe(STAND_IN_CONSOLE.wwwAuthenticate);
    expect(await (await fetch(`${origin}/shop`)).text()).toBe("shop");
    expect((await postStandInForm(`${origin}${basePath}/reconcile`, `q=${"x".repeat(100)}`)).status).toBe(413);
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
