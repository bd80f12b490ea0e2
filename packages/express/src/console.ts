import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import {
  declaresTooLargeBody,
  isWellFormedHost,
  malformedHostResponse,
  readNodeBody,
} from "@kirimbayar/core/webhooks/transport";
import { type RequestHandler, Router } from "express";

/**
 * What the adapters mount: a Web `Request → Response` handler serving every path under `basePath`. The webhook
 * console of `@kirimbayar/console` (`createWebhookConsole()`) is one; the type is structural, so this package does
 * not depend on it.
 */
export interface MountableConsole {
  /** The path the console answers under (`/kirimbayar/console`); its links and form actions start with it. */
  readonly basePath: string;
  /** Answers one request; the URL is the full one the browser asked for (scheme, host, mount path, query). */
  fetch(request: Request): Promise<Response>;
}

/** Limits of the request bodies a mounted console reads (its forms are small). */
export interface ConsoleMountOptions {
  /** Largest body read (default 16 384 bytes); past it the request is answered 413 without reaching the console. */
  maxBodyBytes?: number;
  /** How long a body may take to arrive whole (default 10 000 ms); past it, 408. */
  bodyReadTimeoutMs?: number;
  /**
   * The scheme of the URL handed to the console (its same-origin check compares it with the `Origin` header).
   * Default: Express's `req.protocol` (which honours `X-Forwarded-Proto` when `trust proxy` is set), else `https`
   * on a TLS socket and `http` otherwise.
   */
  getProtocol?: (req: IncomingMessage) => string;
}

/** The default of {@link ConsoleMountOptions.maxBodyBytes}: a console form post is a few hundred bytes. */
export const CONSOLE_MAX_BODY_BYTES = 16_384;
const CONSOLE_BODY_READ_TIMEOUT_MS = 10_000;

/**
 * An Express router serving a console (or any {@link MountableConsole}) under the path it is mounted at, which must
 * be the console's `basePath`. It reads the small form bodies itself, so it works mounted before or after
 * `express.json()`/`express.urlencoded()` (a body a parser already read is handed on as it came, or re-encoded).
 * Who may see the console is the console's `authorize` decision; put your own auth middleware in front as well if
 * you like.
 *
 * @example
 * const webConsole = createWebhookConsole({ journal, authorize, basePath: "/kirimbayar/console" });
 * app.use(webConsole.basePath, consoleRouter(webConsole));
 */
export function consoleRouter(webConsole: MountableConsole, options: ConsoleMountOptions = {}): Router {
  const router = Router();
  const handler: RequestHandler = (req, res, next) => {
    serveConsole(webConsole, req, res, options).catch(next);
  };
  router.use(handler);
  return router;
}

/** A request a body parser may have read before the console, possibly keeping the bytes on `rawBody`. */
type MaybeParsedRequest = IncomingMessage & {
  body?: unknown;
  rawBody?: unknown;
  originalUrl?: string;
  protocol?: unknown;
};

/**
 * Hands one Node request to a console and writes its answer: the building block of {@link consoleRouter}, for Node
 * handlers of your own (and the NestJS module on Express). Resolves once the answer is written.
 *
 * @example
 * http.createServer((req, res) => void serveConsole(webConsole, req, res));
 */
export async function serveConsole(
  webConsole: MountableConsole,
  req: IncomingMessage,
  res: ServerResponse,
  options: ConsoleMountOptions = {},
): Promise<void> {
  const request = await toWebRequest(req, options);
  const response = request instanceof Response ? request : await webConsole.fetch(request);
  await writeWebResponse(res, response, req.method === "HEAD");
}

/**
 * Builds the Web request a console gets from a Node request: method, full URL (scheme, `Host`, the path as received
 * including the mount prefix), headers and the body bytes, read under the limits. Returns the answer to give
 * instead when the body is too large (413), too slow (408) or broken off (400), or the `Host` header is malformed
 * (400).
 */
export async function toWebRequest(
  req: IncomingMessage,
  options: ConsoleMountOptions = {},
): Promise<Request | Response> {
  const parsed = req as MaybeParsedRequest;
  const maxBodyBytes = options.maxBodyBytes ?? CONSOLE_MAX_BODY_BYTES;
  const method = req.method ?? "GET";
  const host = req.headers.host ?? "localhost";
  // A malformed Host (`a b`, `[::1`, `a@b`) is the client's mistake: 400 here, before the console's authorize, where
  // building the URL would otherwise throw into Express's error handler (a 500 with a stack outside production).
  if (!isWellFormedHost(host)) return malformedHostResponse();
  const url = `${protocolOf(parsed, options)}://${host}${parsed.originalUrl ?? req.url ?? "/"}`;
  const headers = webHeadersOf(req.headers);
  if (method === "GET" || method === "HEAD") {
    // Never read: a GET's body means nothing to the console.
    return new Request(url, { method, headers });
  }
  let body: Uint8Array;
  if (req.readableEnded) {
    body = bodyLeftByParser(parsed, headers);
    // The parser decoded the bytes and may have inflated them: what the console gets is this plain body.
    headers.delete("content-encoding");
    headers.delete("content-length");
  } else if (declaresTooLargeBody(req.headers, maxBodyBytes)) {
    return tooLarge(maxBodyBytes);
  } else {
    const read = await readNodeBody(req, {
      maxBodyBytes,
      bodyReadTimeoutMs: options.bodyReadTimeoutMs ?? CONSOLE_BODY_READ_TIMEOUT_MS,
    });
    if (!(read instanceof Uint8Array)) {
      return new Response(read.body, { status: read.status, headers: read.headers });
    }
    body = read;
  }
  if (body.byteLength > maxBodyBytes) return tooLarge(maxBodyBytes);
  return new Request(url, { method, headers, body });
}

/**
 * Writes a Web response to Node's: status, every header (each `Set-Cookie` on its own line) and the body (none for
 * `HEAD`).
 */
export async function writeWebResponse(res: ServerResponse, response: Response, head = false): Promise<void> {
  const body = head || response.body === null ? undefined : new Uint8Array(await response.arrayBuffer());
  if (res.headersSent) return;
  res.statusCode = response.status;
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") res.setHeader(name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  res.end(body);
}

function protocolOf(req: MaybeParsedRequest, options: ConsoleMountOptions): string {
  if (options.getProtocol) return options.getProtocol(req);
  if (typeof req.protocol === "string" && req.protocol !== "") return req.protocol;
  return (req.socket as { encrypted?: boolean }).encrypted === true ? "https" : "http";
}

/** Node's header object as Web `Headers` (repeated headers appended one by one). */
export function webHeadersOf(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    // HTTP/2 pseudo-headers (`:path`…) are not headers of the Web request.
    if (value === undefined || name.startsWith(":")) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  return headers;
}

/**
 * The body a parser left: the bytes its `verify`/`rawBody` hook kept, a `Buffer` or string (`express.raw()`,
 * `express.text()`), or the parsed fields of a form (`express.urlencoded()`), encoded again. A JSON object (from
 * `express.json()`) is encoded again as JSON.
 */
export function bodyLeftByParser(req: { body?: unknown; rawBody?: unknown }, headers: Headers): Uint8Array {
  if (req.rawBody instanceof Uint8Array) return asBytes(req.rawBody);
  const parsed = req.body;
  if (parsed instanceof Uint8Array) return asBytes(parsed);
  if (typeof parsed === "string") return new TextEncoder().encode(parsed);
  if (parsed === undefined || parsed === null) return new Uint8Array(0);
  if ((headers.get("content-type") ?? "").toLowerCase().includes("json")) {
    return new TextEncoder().encode(JSON.stringify(parsed));
  }
  return new TextEncoder().encode(formEncoded(parsed));
}

/** Parsed form fields encoded again: strings (and lists of strings) as they were; nested values are dropped. */
function formEncoded(fields: unknown): string {
  const form = new URLSearchParams();
  if (typeof fields !== "object" || fields === null) return "";
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === "string") form.append(name, value);
    else if (Array.isArray(value)) for (const item of value) if (typeof item === "string") form.append(name, item);
  }
  return form.toString();
}

function tooLarge(maxBodyBytes: number): Response {
  return new Response(`Request body larger than ${maxBodyBytes} bytes.\n`, {
    status: 413,
    headers: { "content-type": "text/plain; charset=utf-8", connection: "close" },
  });
}

// A plain Uint8Array view, never Node's Buffer subclass.
function asBytes(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
