import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { type ConsoleMountOptions, type MountableConsole, serveConsole } from "@kirimbayar/express";
import {
  All,
  type CanActivate,
  Controller,
  Inject,
  PayloadTooLargeException,
  Req,
  Res,
  type Type,
  UseGuards,
} from "@nestjs/common";
import { HttpAdapterHost } from "@nestjs/core";
import type { NestWebhookRequest } from "./webhook-controller.js";

/** The `console` option of `KirimbayarModule.forRoot()`: the console to serve and who may reach it. */
export interface KirimbayarConsoleOptions {
  /**
   * The console (`createWebhookConsole()` of `@kirimbayar/console`, or any {@link MountableConsole}), served at its
   * `basePath` (under the app's global prefix, if any: build the console with the prefixed path then).
   */
  handler: MountableConsole;
  /**
   * Guards that run before the console, as `@UseGuards()` takes them (classes resolved in the module, or instances):
   * e.g. the app's `AuthGuard`. The console's own `authorize` applies as well.
   */
  guards?: readonly (CanActivate | Type<CanActivate>)[];
  /** Largest body read (default 16 384 bytes); past it the request is answered 413 without reaching the console. */
  maxBodyBytes?: number;
}

/** The default limit of a console request body: a console form post is a few hundred bytes. */
const CONSOLE_MAX_BODY_BYTES = 16_384;

/** The slice of a Fastify request the console controller reads (Fastify is an optional peer, never imported). */
interface FastifyConsoleRequest {
  readonly method: string;
  readonly protocol: string;
  readonly host: string;
  readonly originalUrl: string;
  readonly headers: IncomingHttpHeaders;
  readonly body?: unknown;
  readonly rawBody?: unknown;
}

/** The slice of a Fastify reply the console controller writes. */
interface FastifyConsoleReply {
  code(status: number): FastifyConsoleReply;
  header(name: string, value: string | string[]): FastifyConsoleReply;
  send(payload?: Buffer): FastifyConsoleReply;
}

/**
 * Creates the controller serving a console at its `basePath`, guarded by `guards` (then by the console's own
 * `authorize`). `KirimbayarModule.forRoot({ console })` registers it; list it in a module's `controllers` yourself
 * to serve a console from another module. Every method and every path up to three segments under the base path
 * (every console route is one or two) reach the console; its answer (status,
 * CSP, cookies, redirects) goes back unchanged, on Express and on Fastify. The form bodies are taken as Nest's body
 * parser left them (the raw bytes with `rawBody: true`, else the parsed fields, encoded again).
 *
 * @example
 * @Module({ controllers: [createConsoleController({ handler: webConsole, guards: [AuthGuard] })] })
 * class AdminModule {}
 */
export function createConsoleController(options: KirimbayarConsoleOptions): Type {
  const webConsole = options.handler;
  const mountOptions: ConsoleMountOptions = { maxBodyBytes: options.maxBodyBytes ?? CONSOLE_MAX_BODY_BYTES };

  @Controller(webConsole.basePath)
  @UseGuards(...(options.guards ?? []))
  class KirimbayarConsoleController {
    constructor(@Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost) {}

    // One route per depth instead of a wildcard: Express 5 and Fastify share no wildcard syntax (`{*path}` is
    // refused by Fastify's router, `*` makes Nest warn on Express). Every console route is at most two segments
    // deep (`/actions/replay`); a third is allowed for what a later version may add. The base path is routed with
    // and without its trailing slash (the console's own Overview link has it): Fastify tells them apart, and Nest
    // strips one trailing slash from a route, so `//` is what leaves `<basePath>/`.
    @All(["/", "//"])
    root(@Req() req: unknown, @Res() res: unknown): Promise<void> {
      return this.serve(req, res);
    }

    @All(":kirimbayarConsole1")
    page(@Req() req: unknown, @Res() res: unknown): Promise<void> {
      return this.serve(req, res);
    }

    @All(":kirimbayarConsole1/:kirimbayarConsole2")
    subPage(@Req() req: unknown, @Res() res: unknown): Promise<void> {
      return this.serve(req, res);
    }

    @All(":kirimbayarConsole1/:kirimbayarConsole2/:kirimbayarConsole3")
    deepPage(@Req() req: unknown, @Res() res: unknown): Promise<void> {
      return this.serve(req, res);
    }

    private async serve(req: unknown, res: unknown): Promise<void> {
      if (this.adapterHost.httpAdapter?.getType() === "fastify") {
        const request = req as FastifyConsoleRequest;
        const webRequest = webRequestOnFastify(request, mountOptions.maxBodyBytes as number);
        const response = webRequest instanceof Response ? webRequest : await webConsole.fetch(webRequest);
        await sendOnFastify(res as FastifyConsoleReply, response, request.method === "HEAD");
      } else {
        await serveConsole(webConsole, req as NestWebhookRequest, res as ServerResponse, mountOptions);
      }
    }
  }
  return KirimbayarConsoleController;
}

// The console's rule for a Host header (a name of letters, digits and `-._~`, or a bracketed IPv6 literal, then an
// optional port): anything else would make the request's URL throw (`a b`, `[::1`, `a@b`) or point elsewhere.
const WELL_FORMED_HOST = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Za-z:.]+\])(?::(\d{1,5}))?$/;

function isWellFormedHost(host: string): boolean {
  const match = WELL_FORMED_HOST.exec(host);
  return match !== null && Number(match[1] ?? 0) <= 65_535 && URL.canParse(`http://${host}/`);
}

/**
 * The Web request the console gets on the Fastify platform, from the body Nest's parsers left; or 400 for a malformed
 * `Host` (`a b`, `[::1`, `a@b`), before the console's authorize, where building the URL would otherwise throw (a 500).
 */
function webRequestOnFastify(request: FastifyConsoleRequest, maxBodyBytes: number): Request | Response {
  if (!isWellFormedHost(request.host)) {
    return new Response("Bad request: malformed Host header", {
      status: 400,
      headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", connection: "close" },
    });
  }
  const url = `${request.protocol}://${request.host}${request.originalUrl}`;
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name.startsWith(":")) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const method = request.method;
  if (method === "GET" || method === "HEAD") return new Request(url, { method, headers });
  const body = bodyLeftByParser(request, headers);
  if (body.byteLength > maxBodyBytes) throw new PayloadTooLargeException();
  headers.delete("content-length");
  headers.delete("content-encoding");
  return new Request(url, { method, headers, body });
}

/** The raw bytes kept by `rawBody: true`, else the body as parsed: bytes, text, or form fields encoded again. */
function bodyLeftByParser(request: FastifyConsoleRequest, headers: Headers): Uint8Array<ArrayBuffer> {
  const kept = request.rawBody ?? request.body;
  if (kept instanceof Uint8Array) return new Uint8Array(kept);
  if (typeof kept === "string") return new TextEncoder().encode(kept);
  if (typeof kept !== "object" || kept === null) return new Uint8Array(0);
  if ((headers.get("content-type") ?? "").toLowerCase().includes("json")) {
    return new TextEncoder().encode(JSON.stringify(kept));
  }
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(kept)) {
    if (typeof value === "string") form.append(name, value);
    else if (Array.isArray(value)) for (const item of value) if (typeof item === "string") form.append(name, item);
  }
  return new TextEncoder().encode(form.toString());
}

async function sendOnFastify(reply: FastifyConsoleReply, response: Response, head: boolean): Promise<void> {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") reply.header(name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) reply.header("set-cookie", cookies);
  if (head || response.body === null) reply.send();
  else reply.send(Buffer.from(await response.arrayBuffer()));
}
