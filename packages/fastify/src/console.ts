import { WebhookConfigurationError } from "@kirimbayar/core/webhooks";
import { isWellFormedHost, malformedHostResponse } from "@kirimbayar/core/webhooks/transport";
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";

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

/** Options of {@link consolePlugin}. */
export interface ConsolePluginOptions {
  /** The console to serve, at its own `basePath`. */
  console: MountableConsole;
  /** Largest body read (default 16 384 bytes); past it Fastify answers 413 without reaching the console. */
  maxBodyBytes?: number;
}

/** The default of {@link ConsolePluginOptions.maxBodyBytes}: a console form post is a few hundred bytes. */
export const CONSOLE_MAX_BODY_BYTES = 16_384;

/**
 * A Fastify plugin serving a console (or any {@link MountableConsole}) at its `basePath`: register it without a
 * `prefix` (or with `prefix` equal to the `basePath`). Encapsulated: its pass-through body parser, bounded by
 * `maxBodyBytes`, applies to the console's routes only, so the app's JSON and form parsing elsewhere is untouched and
 * cannot break the console's form posts. The console's answer goes back unchanged (status, CSP, cookies,
 * redirects). Who may see the console is the console's `authorize` decision; an `onRequest` hook of yours can add to
 * it.
 *
 * @example
 * const webConsole = createWebhookConsole({ journal, authorize, basePath: "/kirimbayar/console" });
 * await app.register(consolePlugin, { console: webConsole });
 */
export const consolePlugin: FastifyPluginAsync<ConsolePluginOptions> = async (
  fastify: FastifyInstance,
  options: ConsolePluginOptions,
) => {
  const webConsole = options.console;
  if (typeof webConsole?.fetch !== "function" || typeof webConsole.basePath !== "string") {
    throw new WebhookConfigurationError("consolePlugin: pass the console to serve as the `console` option");
  }
  const basePath = trimTrailingSlash(webConsole.basePath);
  const prefix = trimTrailingSlash(fastify.prefix);
  // Routes are relative to the prefix Fastify applies; the console's links assume its basePath.
  let mountedAt: string;
  if (prefix === "") mountedAt = basePath;
  else if (prefix === basePath) mountedAt = "";
  else {
    throw new WebhookConfigurationError(
      `consolePlugin: registered under the prefix ${prefix}, but the console answers under its basePath ${basePath}; ` +
        "register it without a prefix",
    );
  }
  // Every body on these routes, whatever its content type, is kept as bytes for the console to parse.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    "*",
    { parseAs: "buffer", bodyLimit: options.maxBodyBytes ?? CONSOLE_MAX_BODY_BYTES },
    (_request: FastifyRequest, body: Buffer, done: (error: null, body: Buffer) => void) => done(null, body),
  );
  const serve = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const webRequest = webRequestOf(request);
    const response = webRequest instanceof Response ? webRequest : await webConsole.fetch(webRequest);
    return send(reply, response, request.method === "HEAD");
  };
  fastify.all(mountedAt === "" ? "/" : mountedAt, serve);
  fastify.all(`${mountedAt}/*`, serve);
};
// A name in Fastify's plugin tree and errors, and the Fastify major the plugin is written for; no skip-override, so
// the parser above stays inside the plugin.
Object.assign(consolePlugin, {
  [Symbol.for("fastify.display-name")]: "@kirimbayar/fastify:console",
  [Symbol.for("plugin-meta")]: { name: "@kirimbayar/fastify:console", fastify: "5.x" },
});

/**
 * The Web request the console gets: method, full URL as received (scheme, host, path, query), headers, body; or 400
 * for a malformed `Host` (`a b`, `[::1`, `a@b`), before the console's authorize, where building the URL would
 * otherwise throw (a 500).
 */
function webRequestOf(request: FastifyRequest): Request | Response {
  if (!isWellFormedHost(request.host)) return malformedHostResponse();
  const url = `${request.protocol}://${request.host}${request.originalUrl}`;
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name.startsWith(":")) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const method = request.method;
  const body = request.body;
  if (method === "GET" || method === "HEAD" || !(body instanceof Uint8Array))
    return new Request(url, { method, headers });
  return new Request(url, { method, headers, body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength) });
}

async function send(reply: FastifyReply, response: Response, head: boolean): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") reply.header(name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) reply.header("set-cookie", cookies);
  if (head || response.body === null) return reply.send();
  return reply.send(Buffer.from(await response.arrayBuffer()));
}

function trimTrailingSlash(path: string): string {
  return path.endsWith("/") ? path.slice(0, -1) : path;
}
