import { declaresTooLargeBody, readWebBody } from "@kirimbayar/core/webhooks/transport";
import { type Context, type Env, Hono } from "hono";

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
export interface ConsoleAppOptions {
  /** Largest body read (default 16 384 bytes); past it the request is answered 413 without reaching the console. */
  maxBodyBytes?: number;
  /** How long a body may take to arrive whole (default 10 000 ms); past it, 408. */
  bodyReadTimeoutMs?: number;
}

/** The default of {@link ConsoleAppOptions.maxBodyBytes}: a console form post is a few hundred bytes. */
export const CONSOLE_MAX_BODY_BYTES = 16_384;
const CONSOLE_BODY_READ_TIMEOUT_MS = 10_000;

/**
 * A Hono app serving a console (or any {@link MountableConsole}); mount it at the console's `basePath`. The console
 * gets the request as the browser sent it (full URL, headers), with the body read once under a small limit, and its
 * answer goes back unchanged (status, CSP, cookies, redirects). Who may see the console is the console's
 * `authorize` decision; a middleware of yours in front (e.g. `basicAuth`) can add to it. Runtime-neutral.
 *
 * @example
 * const webConsole = createWebhookConsole({ journal, authorize, basePath: "/kirimbayar/console" });
 * app.route(webConsole.basePath, consoleApp(webConsole));
 */
export function consoleApp<E extends Env = Env>(
  webConsole: MountableConsole,
  options: ConsoleAppOptions = {},
): Hono<E> {
  const app = new Hono<E>();
  const serve = async (c: Context<E>): Promise<Response> => {
    const request = await consoleRequestOf(c, options);
    return request instanceof Response ? request : webConsole.fetch(request);
  };
  app.all("/", serve);
  app.all("/*", serve);
  return app;
}

async function consoleRequestOf(c: Context, options: ConsoleAppOptions): Promise<Request | Response> {
  const raw = c.req.raw;
  const method = raw.method;
  if (method === "GET" || method === "HEAD") return new Request(c.req.url, { method, headers: raw.headers });
  const maxBodyBytes = options.maxBodyBytes ?? CONSOLE_MAX_BODY_BYTES;
  if (declaresTooLargeBody(raw.headers, maxBodyBytes)) return tooLarge(maxBodyBytes);
  // Over a plain ArrayBuffer (read into fresh memory), as `BodyInit` asks.
  let body: Uint8Array<ArrayBuffer>;
  if (raw.bodyUsed) {
    // A middleware read the body through c.req first; Hono keeps what it read.
    body = new Uint8Array(await c.req.arrayBuffer());
  } else {
    const read = await readWebBody(raw.body, {
      maxBodyBytes,
      bodyReadTimeoutMs: options.bodyReadTimeoutMs ?? CONSOLE_BODY_READ_TIMEOUT_MS,
    });
    if (!(read instanceof Uint8Array)) return new Response(read.body, { status: read.status, headers: read.headers });
    body = read as Uint8Array<ArrayBuffer>;
  }
  if (body.byteLength > maxBodyBytes) return tooLarge(maxBodyBytes);
  return new Request(c.req.url, { method, headers: raw.headers, body });
}

function tooLarge(maxBodyBytes: number): Response {
  return new Response(`Request body larger than ${maxBodyBytes} bytes.\n`, {
    status: 413,
    headers: { "content-type": "text/plain; charset=utf-8", connection: "close" },
  });
}
