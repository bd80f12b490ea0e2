// `@kirimbayar/testing/nestjs`: a NestJS app (Express or Fastify platform) as a `fetch`, so the fake provider delivers
// its webhooks straight into it (no port either way) with the exact bytes it signed.
import { type FastifyInjectLike, fastifyFetch } from "./fastify.js";
import { type NodeServerLike, serverFetch, serverOf } from "./in-process/node-server.js";
import type { InProcessFetch, InProcessOptions } from "./in-process/web.js";

export type { InProcessFetch, InProcessOptions } from "./in-process/web.js";

/** The slice of a Nest application (`INestApplication`) the helper calls, typed structurally (no Nest import). */
export interface NestApplicationLike {
  getHttpAdapter(): { getType(): string; getInstance(): unknown };
  getHttpServer(): unknown;
}

/**
 * A `fetch` into a NestJS app on the Express or the Fastify platform. On Express each request reaches the app's own
 * HTTP server (never listening) over an in-memory connection, as a socket's would: every `request` listener, Nest's
 * middleware and its raw body; on Fastify it goes through the instance's `inject()`. The app is looked up on the
 * first request, so the `fetch` can be made before `app.init()`; requests must come after it. No port is opened.
 *
 * A Nest app exists only once its module booted, after the fake's URL was needed: make the fake first, then hand it
 * the app with `provider.webhooks.setFetch`.
 *
 * @example
 * import { nestFetch } from "@kirimbayar/testing/nestjs";
 *
 * const provider = createFakeProvider({ webhooks: { qrisUrl: "http://shop.test/webhooks/qris?token=t0k3n" } });
 * const moduleRef = await Test.createTestingModule({ imports: [AppModule] })
 *   .overrideProvider(APP_CONFIG).useValue({ baseUrl: provider.baseUrl, fetch: provider.fetch }) // your config
 *   .compile();
 * const app = moduleRef.createNestApplication({ rawBody: true });
 * await app.init();
 * provider.webhooks.setFetch(nestFetch(app));
 */
export function nestFetch(app: NestApplicationLike, options: InProcessOptions = {}): InProcessFetch {
  if (typeof (app as NestApplicationLike | undefined)?.getHttpAdapter !== "function") {
    throw new TypeError(`nestFetch(app) needs a Nest application (INestApplication); got ${typeof app}`);
  }
  let target: InProcessFetch | undefined;
  return async (input, init) => {
    target ??= platformFetch(app, options);
    return target(input, init);
  };
}

function platformFetch(app: NestApplicationLike, options: InProcessOptions): InProcessFetch {
  const adapter = app.getHttpAdapter();
  const platform = adapter.getType();
  if (platform === "fastify") return fastifyFetch(adapter.getInstance() as FastifyInjectLike, options);
  if (platform === "express") {
    return serverFetch(serverOf(app.getHttpServer() as NodeServerLike, "nestFetch(app)"), options);
  }
  throw new TypeError(`nestFetch(app) supports Nest's Express and Fastify platforms; this app runs on "${platform}"`);
}
