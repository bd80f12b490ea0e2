// `@kirimbayar/testing/fastify`: a Fastify app as a `fetch`, so the fake provider delivers its webhooks straight into
// it through `app.inject()` (no port either way) with the exact bytes it signed.
import {
  type InjectResponseLike,
  type InjectTargetOptions,
  type InProcessFetch,
  injectRequestOf,
  requestOf,
  webResponseOf,
} from "./in-process/inject.js";

export type { InjectResponseLike, InjectTargetOptions, InProcessFetch } from "./in-process/inject.js";

/** The slice of a Fastify instance the helper calls, typed structurally so that these declarations need no Fastify. */
export interface FastifyInjectLike {
  inject(options: never): PromiseLike<InjectResponseLike>;
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
export function fastifyFetch(app: FastifyInjectLike, options: InjectTargetOptions = {}): InProcessFetch {
  if (typeof (app as FastifyInjectLike | undefined)?.inject !== "function") {
    throw new TypeError(`fastifyFetch(app) needs a Fastify instance (what Fastify() returns); got ${typeof app}`);
  }
  return async (input, init) => {
    const request = requestOf(input, init);
    const answer = await app.inject((await injectRequestOf(request, options)) as never);
    return webResponseOf(answer, request.method);
  };
}
