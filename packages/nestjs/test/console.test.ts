// The console served by the NestJS module over real HTTP, on Express and on Fastify, with a stand-in console.
import "reflect-metadata";
import type { Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import {
  createStandInConsole,
  postStandInForm,
  STAND_IN_CONSOLE,
  type StandInConsoleRequest,
  standInFormPost,
} from "@kirimbayar/testing";
import { type CanActivate, type ExecutionContext, Injectable } from "@nestjs/common";
import { FastifyAdapter, type NestFastifyApplication } from "@nestjs/platform-fastify";
import { Test } from "@nestjs/testing";
import { afterEach, describe, expect, it } from "vitest";
import { KirimbayarModule, type MountableConsole } from "../src/index.js";

const { basePath, authorization: operator, cookies, contentSecurityPolicy, form } = STAND_IN_CONSOLE;

/** The app's own guard (as an AuthGuard would be): staff only. */
@Injectable()
class StaffGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>();
    return request.headers["x-staff"] === "yes";
  }
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

type Platform = "express" | "fastify";

async function boot(webConsole: MountableConsole, platform: Platform, rawBody: boolean): Promise<string> {
  const moduleRef = await Test.createTestingModule({
    imports: [KirimbayarModule.forRoot({ console: { handler: webConsole, guards: [StaffGuard] } })],
  }).compile();
  const app =
    platform === "express"
      ? moduleRef.createNestApplication({ logger: false, rawBody })
      : moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false, rawBody });
  close = () => app.close();
  await app.listen(0, "127.0.0.1");
  return `http://127.0.0.1:${((app.getHttpServer() as Server).address() as AddressInfo).port}`;
}

const staff = { authorization: operator, "x-staff": "yes" };

describe.each(["express", "fastify"] as const)("KirimbayarModule console on %s", (platform) => {
  it("serves every path under the base path with the full URL, CSP and every cookie", async () => {
    const webConsole = createStandInConsole();
    const origin = await boot(webConsole, platform, true);
    const page = await fetch(`${origin}${basePath}/search?q=ORD-1`, { headers: staff });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toBe(contentSecurityPolicy);
    expect(page.headers.getSetCookie()).toEqual(cookies);
    expect(((await page.json()) as StandInConsoleRequest).url).toBe(`${origin}${basePath}/search?q=ORD-1`);
    const root = await fetch(`${origin}${basePath}`, { headers: staff });
    expect(root.status).toBe(200);
    expect(((await root.json()) as StandInConsoleRequest).url).toBe(`${origin}${basePath}`);
    for (const path of ["/", "/actions/replay", "/a/b/c"]) {
      const deeper = await fetch(`${origin}${basePath}${path}`, { headers: staff });
      expect(deeper.status, path).toBe(200);
      expect(((await deeper.json()) as StandInConsoleRequest).url).toBe(`${origin}${basePath}${path}`);
    }
  });

  it.each([true, false])("passes a form post's body through Nest's body parser (rawBody: %s)", async (rawBody) => {
    const webConsole = createStandInConsole();
    const origin = await boot(webConsole, platform, rawBody);
    const response = await postStandInForm(`${origin}${basePath}/dead-letters/replay`, form, { "x-staff": "yes" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(STAND_IN_CONSOLE.redirectLocation);
    expect(webConsole.seen).toEqual([standInFormPost(`${origin}${basePath}/dead-letters/replay`)]);
  });

  it("hands on a body no Nest parser takes (read from the stream on Express), and bounds it", async () => {
    const webConsole = createStandInConsole();
    const origin = await boot(webConsole, platform, false);
    const post = (body: string) =>
      fetch(`${origin}${basePath}/notes`, {
        method: "POST",
        headers: { ...staff, "content-type": "text/plain" },
        body,
        redirect: "manual",
      });
    expect((await post("hello, console")).status).toBe(303);
    expect(webConsole.seen.map(({ contentType, body }) => ({ contentType, body }))).toEqual([
      { contentType: "text/plain", body: "hello, console" },
    ]);
    expect((await post("x".repeat(20_000))).status).toBe(413);
    expect(webConsole.seen).toHaveLength(1);
  });

  it("runs the app's guard before the console, then the console's own authorize; bounds the body", async () => {
    const webConsole = createStandInConsole();
    const origin = await boot(webConsole, platform, true);
    expect((await fetch(`${origin}${basePath}`, { headers: { authorization: operator } })).status).toBe(403);
    expect((await fetch(`${origin}${basePath}`, { headers: { "x-staff": "yes" } })).status).toBe(401);
    const large = await fetch(`${origin}${basePath}/reconcile`, {
      method: "POST",
      headers: { ...staff, "content-type": "application/x-www-form-urlencoded" },
      body: `q=${"x".repeat(20_000)}`,
    });
    expect(large.status).toBe(413);
    expect(webConsole.seen).toEqual([]);
  });

  it.each(["a b", "[::1", "evil.example/x"])("answers a malformed Host (%s) 400, with no stack", async (host) => {
    const webConsole = createStandInConsole();
    const origin = await boot(webConsole, platform, true);
    const raw = await rawRequest(
      origin,
      `GET ${basePath}/search?q=1 HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${operator}\r\nX-Staff: yes\r\n` +
        "Connection: close\r\n\r\n",
    );
    expect(raw.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
    expect(raw).not.toMatch(/\bat \S+ \(|node_modules|\.ts:\d+/);
    expect(webConsole.seen).toEqual([]);
  });
});

/** Sends `request` as written on a TCP connection to `origin` and returns everything the server wrote back. */
function rawRequest(origin: string, request: string): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.setTimeout(5_000, () => socket.destroy(new Error("no answer within 5 s")));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}
