// The console plugin over real HTTP, with a stand-in console that echoes what it got.
import {
  createStandInConsole,
  postStandInForm,
  STAND_IN_CONSOLE,
  type StandInConsoleRequest,
  standInFormPost,
} from "@kirimbayar/testing";
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { consolePlugin } from "../src/index.js";

const { basePath, authorization: operator, cookies, contentSecurityPolicy } = STAND_IN_CONSOLE;

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function listen(instance: FastifyInstance): Promise<string> {
  app = instance;
  return instance.listen({ port: 0, host: "127.0.0.1" });
}

describe("consolePlugin", () => {
  it("hands a GET the full URL with the base path and query, and writes status, CSP and every cookie back", async () => {
    const webConsole = createStandInConsole();
    const instance = Fastify();
    await instance.register(consolePlugin, { console: webConsole });
    const origin = await listen(instance);
    const response = await fetch(`${origin}${basePath}/search?q=ORD-1`, { headers: { authorization: operator } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toBe(contentSecurityPolicy);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.getSetCookie()).toEqual(cookies);
    expect(((await response.json()) as StandInConsoleRequest).url).toBe(`${origin}${basePath}/search?q=ORD-1`);
    const root = await fetch(`${origin}${basePath}`, { headers: { authorization: operator } });
    expect(((await root.json()) as StandInConsoleRequest).url).toBe(`${origin}${basePath}`);
  });

  it("passes a form post's body, although the app parses forms and JSON everywhere else", async () => {
    const webConsole = createStandInConsole();
    const instance = Fastify();
    // The app's own form parser (as @fastify/formbody adds), at the root.
    instance.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_request, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    instance.post("/shop/form", async (request) => request.body);
    await instance.register(consolePlugin, { console: webConsole });
    const origin = await listen(instance);
    const response = await postStandInForm(`${origin}${basePath}/dead-letters/replay`);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(STAND_IN_CONSOLE.redirectLocation);
    expect(webConsole.seen).toEqual([standInFormPost(`${origin}${basePath}/dead-letters/replay`)]);
    // The app's own form route still gets its parsed fields.
    expect(await (await postStandInForm(`${origin}/shop/form`, "a=1")).json()).toEqual({ a: "1" });
  });

  it("works registered with the base path as prefix, and refuses another prefix when registered", async () => {
    const webConsole = createStandInConsole();
    const instance = Fastify();
    await instance.register(consolePlugin, { console: webConsole, prefix: basePath });
    const origin = await listen(instance);
    const response = await fetch(`${origin}${basePath}/sources`, { headers: { authorization: operator } });
    expect(((await response.json()) as StandInConsoleRequest).url).toBe(`${origin}${basePath}/sources`);
    const elsewhere = Fastify();
    await expect(elsewhere.register(consolePlugin, { console: webConsole, prefix: "/admin" })).rejects.toThrow(
      /prefix \/admin.*basePath \/kirimbayar\/console/,
    );
    await elsewhere.close();
  });

  it("refuses who the console refuses, and never lets a body past the limit reach it", async () => {
    const webConsole = createStandInConsole();
    const instance = Fastify();
    await instance.register(consolePlugin, { console: webConsole, maxBodyBytes: 64 });
    const origin = await listen(instance);
    const anonymous = await fetch(`${origin}${basePath}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe(STAND_IN_CONSOLE.wwwAuthenticate);
    expect((await postStandInForm(`${origin}${basePath}/reconcile`, `q=${"x".repeat(100)}`)).status).toBe(413);
    expect(webConsole.seen).toEqual([]);
  });
});
