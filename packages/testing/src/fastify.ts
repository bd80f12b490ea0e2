// `@kirimbayar/testing/fastify`: a Fastify app as a `fetch`, so the fake provider delivers its webhooks straight into
// it through `app.inject()` (no port either way) with the exact bytes it signed.
import { type InProcessFetch, type InProcessOptions, requestOf, webResponseOf } from "./in-process/web.js";

export type { InProcessFetch, InProcessOptions } from "./in-process/web.js";

/** What the helper reads of Fastify's `inject()` answer (light-my-request's `Response`). */
export interface FastifyInjectResponseLike {
  statusCode: number;
  statusMessage?: string;
  headers: Record<string, string | string[] | number | undefined>;
  rawPayload: Uint8Array;
}

/** The slice of a Fastify instance the helper calls, typed structurally so that these declarations need no Fastify. */
export interface FastifyInjectLike {
  inject(options: never): PromiseLike<FastifyInjectResponseLike>;
}

/**
 * A `fetch` into a Fastify app: each request goes through `app.inject()` (hooks, content-type parsers, routes, and
 * `@kirimbayar/fastify`'s plugin reading the raw bytes the fake signed), and the app's answer comes back as a
 * `Response`. `inject` waits for the app to be ready; no port is opened.
 *
 * @example
 * import { fastifyFetch } from "@kirimbayar/testing/fastify";
 *
 * const app = Fastify();
 * app.register(createWebhookPlugin({ qris: { verify } }), { prefix: "/webhooks" }); // @kirimbayar/fastify
 * const provider = createFakeProvider({
 *   webhooks: { qrisUrl: "http://shop.test/webhooks/qris?token=t0k3n", fetch: fastifyFetch(app) },
 * });
 */
export function fastifyFetch(app: FastifyInjectLike, options: InProcessOptions = {}): InProcessFetch {
  if (typeof (app as FastifyInjectLike | undefined)?.inject !== "function") {
    throw new TypeError(`fastifyFetch(app) needs a Fastify instance (what Fastify() returns); got ${typeof app}`);
  }
  return async (input, init) => {
    const request = requestOf(input, init);
    const url = new URL(request.url);
    const headers: Record<string, string> = { host: url.host };
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    // A Buffer: inject would send a plain object or typed array as JSON.
    const payload = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
    const answer = await app.inject({
      method: request.method,
      url: `${url.pathname}${url.search}`,
      headers,
      ...(payload === undefined ? {} : { payload }),
      remoteAddress: options.remoteAddress ?? "127.0.0.1",
    } as never);
    return webResponseOf(
      {
        status: answer.statusCode,
        statusText: answer.statusMessage,
        headers: headerPairs(answer.headers),
        body: answer.rawPayload,
      },
      request.method,
    );
  };
}

function* headerPairs(headers: FastifyInjectResponseLike["headers"]): Iterable<readonly [string, string]> {
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) yield [name, item];
    else yield [name, String(value)];
  }
}
