import { Hono } from "hono";
import { jsonReply } from "./json-reply.js";
import { CONTROL_PREFIX, controlApp } from "./routes/control.js";
import { legacyRoutes } from "./routes/legacy.js";
import { orderRoutes } from "./routes/orders.js";
import { paymentRoutes } from "./routes/payment.js";
import { qrisRoutes } from "./routes/qris.js";
import { shippingRoutes } from "./routes/shipping.js";
import { authFailure, type ErrorReply, errorReply, type FakeService, serviceOf } from "./services.js";
import { type FakeApp, type FakeContext, type FakeDeps, type FakeEnv, readParams } from "./world.js";

/** Responses that stand for "the connection broke" or "the caller aborted": the transports turn them into errors. */
export const NETWORK_FAILURE = new WeakSet<Response>();
export const ABORTED = new WeakSet<Response>();

/** One API request the fake answered, for assertions (no headers, so no keys). */
export interface RecordedRequest {
  method: string;
  path: string;
  /** Query string without any `key`/`android-key`/`ios-key` values. */
  query: string;
  service: FakeService | undefined;
  status: number | "network-error" | "aborted";
  at: Date;
}

// Synchronous for the services whose key is a header (most requests): an await per request costs a turn of the
// microtask queue; only the legacy interfaces may carry it in a form body.
function presentedKey(c: FakeContext, service: FakeService): string | undefined | Promise<string | undefined> {
  switch (service) {
    case "payment":
    case "qris":
    case "orders":
      return c.req.header("x-api-key");
    case "shipping":
      return c.req.header("key");
    default:
      return legacyKey(c);
  }
}

async function legacyKey(c: FakeContext): Promise<string | undefined> {
  const params = await readParams(c);
  const key = c.req.header("key") ?? params.key;
  return typeof key === "string" ? key : undefined;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function send(reply: ErrorReply, headers: Record<string, string> = {}): Response {
  return jsonReply(reply.body as object, reply.status as 400, headers);
}

function redactedQuery(search: string): string {
  const params = new URLSearchParams(search);
  for (const name of ["key", "android-key", "ios-key"]) if (params.has(name)) params.set(name, "[redacted]");
  const text = params.toString();
  return text ? `?${text}` : "";
}

const apps: { plain?: FakeApp; withControl?: FakeApp } = {};

/**
 * The fake's HTTP app, built on first use and shared by every fake of the process (with or without the control API):
 * each request carries its fake's {@link FakeDeps} as `env`. Building the routes and compiling the router once,
 * instead of once per fake, is most of what makes a new fake cheap.
 */
export function fakeApp(controlApi: boolean): FakeApp {
  const key = controlApi ? "withControl" : "plain";
  apps[key] ??= createFakeApp(controlApi);
  return apps[key];
}

/**
 * Builds the app: per request it applies latency and injected faults, counts the rate limit, checks the key of the
 * service that owns the path, then runs the route. Every response carries the rate-limit headers.
 */
function createFakeApp(controlApi: boolean): FakeApp {
  const app = new Hono<FakeEnv>();

  if (controlApi) app.route(CONTROL_PREFIX, controlApp());

  app.use("*", async (c, next) => {
    const deps: FakeDeps = c.env;
    const pathname = c.req.path;
    const rawUrl = c.req.url;
    const queryAt = rawUrl.indexOf("?");
    const service = serviceOf(pathname);
    const record: RecordedRequest = {
      method: c.req.method,
      path: pathname,
      query: queryAt === -1 ? "" : redactedQuery(rawUrl.slice(queryAt)),
      service,
      status: 0,
      at: new Date(deps.world.clock.now()),
    };
    if (deps.recordRequests) deps.requests.push(record);
    const signal = c.req.raw.signal;
    try {
      const fault = deps.faults.pending > 0 ? deps.faults.take(c.req.method, pathname) : undefined;
      const delay = deps.latencyMs + (fault?.delayMs ?? 0);
      if (delay > 0) await sleep(delay, signal);
      if (fault?.networkError) {
        record.status = "network-error";
        const broken = new Response(null, { status: 599 });
        NETWORK_FAILURE.add(broken);
        return broken;
      }
      const found = service ? presentedKey(c, service) : undefined;
      const presented = typeof found === "object" ? await found : found;
      const verdict = service && deps.rateLimiter?.hit(`${service}:${presented ?? ""}`);
      const rateHeaders = verdict ? verdict.headers : {};
      if (verdict?.limited) {
        c.res = send(errorReply(service, 429, "Too Many Requests: rate limit exceeded"), {
          ...rateHeaders,
          "Retry-After": String(verdict.retryAfterSeconds),
        });
      } else if (fault?.status !== undefined) {
        c.res = send(errorReply(service, fault.status, fault.message ?? "Injected failure"), {
          ...rateHeaders,
          ...fault.headers,
        });
      } else if (service && (presented === undefined || !deps.keys[service].includes(presented))) {
        c.res = send(authFailure(service, presented !== undefined && presented !== ""), rateHeaders);
      } else {
        await next();
        for (const [name, value] of Object.entries(rateHeaders)) c.res.headers.set(name, value);
      }
      record.status = c.res.status;
      return c.res;
    } catch (error) {
      if (signal.aborted) {
        record.status = "aborted";
        const aborted = new Response(null, { status: 499 });
        ABORTED.add(aborted);
        return aborted;
      }
      throw error;
    }
  });

  shippingRoutes(app);
  paymentRoutes(app);
  qrisRoutes(app);
  orderRoutes(app);
  legacyRoutes(app);

  app.notFound((c) =>
    send(
      errorReply(
        serviceOf(c.req.path),
        404,
        `Not Found: ${c.req.method} ${c.req.path} is not an endpoint of the fake provider`,
      ),
    ),
  );
  app.onError((error, c) =>
    send(errorReply(serviceOf(c.req.path), 500, `Internal Server Error (fake provider): ${error.message}`)),
  );
  return app;
}
