// The console's HTTP on both of Nest's platforms: the Web `Request` it gets from the request Nest hands the
// controller, and its `Response` written back. Structural, so neither Express nor Fastify is imported.
import type { IncomingHttpHeaders } from "node:http";
import {
  declaresTooLargeBody,
  isWellFormedHost,
  malformedHostResponse,
  type NodeBodySource,
  readNodeBody,
} from "@kirimbayar/core/webhooks/transport";

/** How much body the console reads, and for how long. */
export interface ConsoleBodyLimits {
  readonly maxBodyBytes: number;
  readonly bodyReadTimeoutMs: number;
}

/**
 * The slice of the request the controller gets: on Express, Node's `IncomingMessage` as Express extends it (`protocol`,
 * `originalUrl`); on Fastify, Fastify's request (`protocol`, `host`, `originalUrl`), whose body Fastify has read.
 * Either way Nest's body parser may have left the body parsed, and its bytes on `rawBody` with `rawBody: true`.
 */
export interface ConsoleRequestLike extends Partial<NodeBodySource> {
  readonly method?: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly url?: string | undefined;
  readonly originalUrl?: string | undefined;
  readonly protocol?: unknown;
  /** Fastify's `host` (the `Host` header, or HTTP/2's `:authority`). */
  readonly host?: unknown;
  readonly body?: unknown;
  readonly rawBody?: unknown;
  /** Node's: the stream was read to its end (by Nest's body parser). */
  readonly readableEnded?: boolean;
  readonly socket?: { readonly encrypted?: boolean } | undefined;
}

/** The slice of Node's `ServerResponse` (Express platform) the controller writes. */
export interface NodeResponseLike {
  readonly headersSent: boolean;
  statusCode: number;
  setHeader(name: string, value: string | string[]): unknown;
  end(body?: Uint8Array): unknown;
}

/** The slice of a Fastify reply the controller writes. */
export interface FastifyReplyLike {
  code(status: number): FastifyReplyLike;
  header(name: string, value: string | string[]): FastifyReplyLike;
  send(payload?: Uint8Array): FastifyReplyLike;
}

/**
 * The Web request for the console: method, the full URL (scheme, `Host`, the path as received), headers and the
 * body. Returns the answer to give instead: 400 for a `Host` that makes no URL, 413 past `maxBodyBytes`, 408 (or
 * 400) when the body does not arrive whole. Bodies come as Nest's parser left them: the raw bytes with
 * `rawBody: true`, else the parsed fields, encoded again; a body no parser took (Express) is read here.
 */
export async function consoleRequestOf(
  req: ConsoleRequestLike,
  onFastify: boolean,
  limits: ConsoleBodyLimits,
): Promise<Request | Response> {
  const url = consoleUrl(req, onFastify);
  // The client's mistake: 400 here, before the console's authorize, as every console mount answers it.
  if (url === undefined) return malformedHostResponse();
  const method = req.method ?? "GET";
  const headers = webHeadersOf(req.headers);
  if (method === "GET" || method === "HEAD") return new Request(url, { method, headers });
  let body: Uint8Array<ArrayBuffer>;
  if (onFastify || req.readableEnded === true || typeof req.on !== "function") {
    body = bodyLeftByParser(req, headers);
    // What the console gets is this plain body: the parser decoded the bytes and may have inflated them.
    headers.delete("content-encoding");
    headers.delete("content-length");
  } else if (declaresTooLargeBody(req.headers, limits.maxBodyBytes)) {
    return tooLarge(limits.maxBodyBytes);
  } else {
    const read = await readNodeBody(req as NodeBodySource, limits);
    if (!(read instanceof Uint8Array)) {
      return new Response(read.body, { status: read.status, headers: read.headers });
    }
    body = new Uint8Array(read);
  }
  if (body.byteLength > limits.maxBodyBytes) return tooLarge(limits.maxBodyBytes);
  return new Request(url, { method, headers, body });
}

/** Writes the console's answer: status, every header (each `Set-Cookie` on its own) and the body (none for HEAD). */
export async function writeConsoleResponse(
  res: NodeResponseLike | FastifyReplyLike,
  response: Response,
  head: boolean,
  onFastify: boolean,
): Promise<void> {
  const body = head || response.body === null ? undefined : new Uint8Array(await response.arrayBuffer());
  const cookies = response.headers.getSetCookie();
  if (onFastify) {
    const reply = (res as FastifyReplyLike).code(response.status);
    response.headers.forEach((value, name) => {
      if (name !== "set-cookie") reply.header(name, value);
    });
    if (cookies.length > 0) reply.header("set-cookie", cookies);
    // Fastify sends a Buffer as bytes; any other object it would serialize as JSON.
    reply.send(body === undefined ? undefined : Buffer.from(body.buffer, body.byteOffset, body.byteLength));
    return;
  }
  const node = res as NodeResponseLike;
  if (node.headersSent) return;
  node.statusCode = response.status;
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") node.setHeader(name, value);
  });
  if (cookies.length > 0) node.setHeader("set-cookie", cookies);
  node.end(body);
}

/** The full URL the browser asked for, or `undefined` when the `Host` (by the console's rule) makes none. */
function consoleUrl(req: ConsoleRequestLike, onFastify: boolean): string | undefined {
  const host = (onFastify && typeof req.host === "string" ? req.host : req.headers.host) ?? "localhost";
  if (!isWellFormedHost(host)) return undefined;
  const protocol =
    typeof req.protocol === "string" && req.protocol !== ""
      ? req.protocol
      : req.socket?.encrypted === true
        ? "https"
        : "http";
  const url = `${protocol}://${host}${req.originalUrl ?? req.url ?? "/"}`;
  return URL.canParse(url) ? url : undefined;
}

/** Node's header object as Web `Headers` (repeated headers appended one by one; HTTP/2 pseudo-headers left out). */
function webHeadersOf(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || name.startsWith(":")) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  return headers;
}

/** The raw bytes kept by `rawBody: true`, else the body as parsed: bytes, text, or fields encoded again. */
function bodyLeftByParser(req: ConsoleRequestLike, headers: Headers): Uint8Array<ArrayBuffer> {
  const kept = req.rawBody instanceof Uint8Array ? req.rawBody : req.body;
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

function tooLarge(maxBodyBytes: number): Response {
  // `Connection: close`: the rest of the body is never read.
  return plainAnswer(413, `Request body larger than ${maxBodyBytes} bytes.`, { connection: "close" });
}

function plainAnswer(status: number, text: string, headers: Record<string, string> = {}): Response {
  return new Response(`${text}\n`, { status, headers: { "content-type": "text/plain; charset=utf-8", ...headers } });
}
