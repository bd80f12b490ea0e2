// createWebhookConsole: authorize, route, check the forms, render. A Web Request → Response handler and nothing
// else, so every adapter mounts it in one line.
import type { WebhookSource } from "@kirimbayar/core/webhooks";
import { isWellFormedHost } from "@kirimbayar/core/webhooks/transport";
import { reconcile, replay } from "./actions.js";
import { type ConsoleConfig, configOf, SOURCES } from "./config.js";
import { readOverview } from "./data/overview.js";
import { textRedactor } from "./data/redact.js";
import { settle } from "./data/settle.js";
import { readTimeline } from "./data/timeline.js";
import { csrfTokens } from "./http/csrf.js";
import { page, seeOther, text } from "./http/responses.js";
import { isSameOrigin } from "./http/same-origin.js";
import type { WebhookConsole, WebhookConsoleOptions } from "./options.js";
import { deadLettersPage } from "./render/dead-letters.js";
import type { PageContext } from "./render/layout.js";
import { noticeOf } from "./render/notices.js";
import { overviewPage } from "./render/overview.js";
import { searchPage } from "./render/search.js";
import { ROUTE_METHODS, type RouteName, routeOf } from "./routes.js";

/** Largest action form read (a token, a source, an id, a reference). */
const FORM_MAX_BYTES = 4_096;
/** Longest reference searched for. */
const REFERENCE_MAX = 256;

/** Who the request is, per `authorize`: an identity for the CSRF tokens, or undefined when refused. */
async function identityOf(config: ConsoleConfig, request: Request): Promise<string | undefined> {
  const decision = await config.authorize(request);
  if (decision === true) return "";
  // Prefixed so that `true` (no identity) and a user id can never share a token.
  if (typeof decision === "string" && decision !== "") return `id:${decision}`;
  return undefined;
}

async function formOf(request: Request): Promise<URLSearchParams | undefined> {
  const type = request.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) return undefined;
  // A declared length past the limit is refused unread; an undeclared one is read and then checked.
  if (Number(request.headers.get("content-length") ?? 0) > FORM_MAX_BYTES) return undefined;
  const body = await request.text();
  return body.length > FORM_MAX_BYTES ? undefined : new URLSearchParams(body);
}

/**
 * Builds the webhook console: the pages a developer on call opens to answer "the customer paid, why is the order
 * still unpaid?" — a payment's or order's whole story from the delivery journal (every delivery and its answer,
 * duplicates, handler failures, inbox tries, dead letters, reconciliation findings, the current idempotency
 * record), per-source health over the last 24 hours, and two actions (replay a dead letter, reconcile one
 * reference now) that only go through the inbox and the reconciler, so nothing is applied outside the idempotency
 * store.
 *
 * Secure by construction: it refuses to be built without `authorize`; every POST needs a CSRF token bound to the
 * identity `authorize` returned and a same-origin request; every answer carries a strict CSP (no script at all),
 * `no-store` and `no-referrer`; every value from a webhook is escaped; no request header or raw body is shown.
 *
 * @throws {ConsoleConfigurationError} without `authorize` or `journal`, or with a wrong `basePath` or `secret`.
 *
 * @example
 * const webhookConsole = createWebhookConsole({
 *   journal,
 *   basePath: "/kirimbayar/console",
 *   authorize: async (request) => (await session(request))?.isAdmin === true ? (await session(request))!.userId : false,
 *   inboxes: { qris: qrisInbox },
 *   reconciler,
 * });
 * // Any framework: hand it the requests under its base path.
 * const response = await webhookConsole.fetch(request);
 */
export function createWebhookConsole(options: WebhookConsoleOptions): WebhookConsole {
  const config = configOf(options);
  const tokens = csrfTokens(config.secret, config.csrfTtlMs, config.clock);
  const redact = textRedactor(config.secrets);

  async function context(url: URL, identity: string): Promise<PageContext> {
    return {
      base: config.base,
      title: config.title,
      csrfToken: await tokens.issue(identity),
      now: config.clock(),
      notice: noticeOf(url.searchParams.get("notice")),
      canReconcile: config.reconciler !== undefined,
    };
  }

  async function render(route: RouteName, url: URL, identity: string): Promise<string> {
    const pageContext = await context(url, identity);
    if (route === "search") {
      const reference = (url.searchParams.get("q") ?? "").trim().slice(0, REFERENCE_MAX);
      const data = reference === "" ? undefined : await readTimeline(config, reference);
      return searchPage(pageContext, data, redact);
    }
    if (route === "deadLetters") {
      const sources = SOURCES.filter((source) => config.inboxes[source] !== undefined);
      const inboxes = await Promise.all(
        sources.map(async (source: WebhookSource) => ({
          source,
          letters: await settle(
            () => config.inboxes[source]?.listDeadLetters({ limit: 100 }) ?? [],
            `inboxes.${source}.listDeadLetters`,
            config.report,
          ),
        })),
      );
      return deadLettersPage(pageContext, inboxes, redact);
    }
    return overviewPage(pageContext, await readOverview(config), config.silentAfterMs);
  }

  async function act(route: RouteName, request: Request, identity: string): Promise<Response> {
    // Both checks, always: the token proves the form came from this identity's page, the origin that the
    // browser is on the console's own site (a token leaked into a log does not make a cross-site form work).
    if (!isSameOrigin(request, config.allowedOrigins)) return text(403, "Forbidden: cross-site request");
    const form = await formOf(request);
    if (form === undefined || !(await tokens.verify(form.get("csrf"), identity))) {
      return text(403, "Forbidden: the form expired or is not yours; reload the page and try again");
    }
    return seeOther(route === "replay" ? await replay(config, form) : await reconcile(config, form));
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const route = routeOf(config.base, url.pathname);
    const inside = url.pathname === config.base || url.pathname.startsWith(`${config.base}/`);
    if (!inside) return text(404, "Not found");
    let identity: string | undefined;
    try {
      identity = await identityOf(config, request);
    } catch (error) {
      config.report(error, "authorize");
      return text(403, "Forbidden");
    }
    if (identity === undefined) {
      const challenge = config.unauthorizedChallenge;
      return text(401, "Unauthorized", challenge === undefined ? {} : { "www-authenticate": challenge });
    }
    if (route === undefined) return text(404, "Not found");
    const allowed = ROUTE_METHODS[route];
    if (!allowed.includes(request.method)) return text(405, "Method not allowed", { allow: allowed.join(", ") });
    if (request.method === "POST") return act(route, request, identity);
    return page(200, await render(route, url, identity), request.method === "HEAD");
  }

  return {
    basePath: config.base === "" ? "/" : config.base,
    async fetch(request) {
      try {
        // Before authorize: a malformed Host makes the URL the pages and the origin check stand on wrong.
        const host = request.headers.get("host");
        if (host !== null && !isWellFormedHost(host)) return await text(400, "Bad request: malformed Host header");
        return await handle(request);
      } catch (error) {
        config.report(error, "console");
        return text(500, "The console failed; the app's error log has why.");
      }
    },
  };
}
