// The console plugin over real HTTP, with a stand-in console that echoes what it got.
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { consolePlugin, type MountableConsole } from "../src/index.js";

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

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function listen(instance: FastifyInstance): Promise<string> {
  app = instance;
  return instance.listen({ port: 0, host: "127.0.0.1" });
}

const form = "csrf=t0k&action=replay&id=dl-1";
const postForm = (url: string, body = form) =>
  fetch(url, {
    method: "POST",
    headers: { authorization: operator, "content-type": "application/x-www-form-urlencoded" },
    body,
    redirect: "manual",
  });

describe("consolePlugin", () => {
  it("hands a GET the full URL with the base path and query, and writes status, CSP and every cookie back", async () => {
    const webConsole = echoConsole();
    const instance = Fastify();
    await instance.register(consolePlugin, { console: webConsole });
    const origin = await listen(instance);
    const response = await fetch(`${origin}${basePath}/search?q=ORD-1`, { headers: { authorization: operator } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toBe("default-src 'none'");
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.getSetCookie()).toEqual(["kb_session=abc; HttpOnly", "kb_csrf=def"]);
    expect(((await response.json()) as Seen).url).toBe(`${origin}${basePath}/search?q=ORD-1`);
    const root = await fetch(`${origin}${basePath}`, { headers: { authorization: operator } });
    expect(((await root.json()) as Seen).url).toBe(`${origin}${basePath}`);
  });

  it("passes a form post's body, although the app parses forms and JSON everywhere else", async () => {
    const webConsole = echoConsole();
    const instance = Fastify();
    // The app's own form parser (as @fastify/formbody adds), at the root.
    instance.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_request, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    instance.post("/shop/form", async (request) => request.body);
    await instance.register(consolePlugin, { console: webConsole });
    const origin = await listen(instance);
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
    // The app's own form route still gets its parsed fields.
    expect(await (await postForm(`${origin}/shop/form`, "a=1")).json()).toEqual({ a: "1" });
  });

  it("works registered with the base path as prefix, and refuses another prefix when registered", async () => {
    const webConsole = echoConsole();
    const instance = Fastify();
    await instance.register(consolePlugin, { console: webConsole, prefix: basePath });
    const origin = await listen(instance);
    const response = await fetch(`${origin}${basePath}/sources`, { headers: { authorization: operator } });
    expect(((await response.json()) as Seen).url).toBe(`${origin}${basePath}/sources`);
    const elsewhere = Fastify();
    await expect(elsewhere.register(consolePlugin, { console: webConsole, prefix: "/admin" })).rejects.toThrow(
      /prefix \/admin.*basePath \/kirimbayar\/console/,
    );
    await elsewhere.close();
  });

  it("refuses who the console refuses, and never lets a body past the limit reach it", async () => {
    const webConsole = echoConsole();
    const instance = Fastify();
    await instance.register(consolePlugin, { console: webConsole, maxBodyBytes: 64 });
    const origin = await listen(instance);
    const anonymous = await fetch(`${origin}${basePath}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Basic realm="console"');
    expect((await postForm(`${origin}${basePath}/reconcile`, `q=${"x".repeat(100)}`)).status).toBe(413);
    expect(webConsole.seen).toEqual([]);
  });
});
