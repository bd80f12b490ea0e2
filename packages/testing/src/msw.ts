// `@kirimbayar/testing/msw`: the stateful fake provider as msw request handlers, for host apps whose tests already
// intercept `fetch` with msw. The handlers delegate every request under the fake's base URL to the same fake that
// `createFakeProvider()` returns, so state (payments, QR codes, orders, the clock, webhooks) is shared with it.
import { http, type RequestHandler } from "msw";
import { createFakeProvider, type FakeProvider, type FakeProviderOptions } from "./fake/provider.js";

/** Options of {@link fakeProviderHandlers}. */
export interface FakeProviderHandlersOptions {
  /**
   * The origin your clients are configured with (e.g. `https://api.example.id`); requests under it go to the fake.
   * Default: the fake's own {@link FakeProvider.baseUrl}.
   */
  baseUrl?: string;
}

/**
 * msw handlers answering every request under `baseUrl` from `provider`.
 *
 * @example
 * const provider = createFakeProvider();
 * const server = setupServer(...fakeProviderHandlers(provider, { baseUrl: "https://api.example.id" }));
 * server.listen();
 * const qris = new QrisClient({ apiKey: provider.apiKeys.qris[0]!, baseUrl: "https://api.example.id" });
 */
export function fakeProviderHandlers(
  provider: FakeProvider,
  options: FakeProviderHandlersOptions = {},
): RequestHandler[] {
  const origin = new URL(options.baseUrl ?? provider.baseUrl);
  const prefix = `${origin.origin}${origin.pathname.replace(/\/$/, "")}`;
  // The fake serves the spec's paths at its root: a base URL with a path of its own is taken off first.
  return [
    http.all(`${prefix}/*`, ({ request }) =>
      provider.fetch(new Request(`${provider.baseUrl}${request.url.slice(prefix.length)}`, request)),
    ),
  ];
}

/**
 * A new fake provider and its msw handlers in one call.
 *
 * @example
 * const { provider, handlers } = createFakeProviderHandlers({ baseUrl: "https://api.example.id" });
 * server.use(...handlers);
 */
export function createFakeProviderHandlers(options: FakeProviderOptions & FakeProviderHandlersOptions = {}): {
  provider: FakeProvider;
  handlers: RequestHandler[];
} {
  const { baseUrl, ...providerOptions } = options;
  const provider = createFakeProvider(providerOptions);
  return { provider, handlers: fakeProviderHandlers(provider, baseUrl === undefined ? {} : { baseUrl }) };
}
