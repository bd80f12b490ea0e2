import type { Context, Hono } from "hono";
import type { Clock } from "../clock.js";
import type { FixtureContext } from "../fixtures/context.js";
import type { RecordedRequest } from "./app.js";
import type { FaultQueue } from "./faults.js";
import type { RateLimiter } from "./rate-limit.js";
import type { FakeService } from "./services.js";
import type { OrderStore } from "./state/orders.js";
import type { PaymentStore } from "./state/payments.js";
import type { QrisStore } from "./state/qris.js";
import type { WebhookDispatcher } from "./webhooks.js";

/** Everything the routes read and change. */
export interface World {
  ctx: FixtureContext;
  clock: Clock;
  payments: PaymentStore;
  qris: QrisStore;
  orders: OrderStore;
  dispatcher: WebhookDispatcher;
}

/**
 * One fake's state and settings, handed to the shared app with every request (`app.fetch(request, deps)`): the app
 * and its compiled router are built once per process, not once per fake.
 */
export interface FakeDeps {
  world: World;
  keys: Record<FakeService, readonly string[]>;
  rateLimiter: RateLimiter | undefined;
  faults: FaultQueue;
  latencyMs: number;
  /** `false` (option `recordRequests`): `requests` stays empty. */
  recordRequests: boolean;
  requests: RecordedRequest[];
}

/** Hono environment of the fake's app. */
export interface FakeEnv {
  Bindings: FakeDeps;
}

/** The fake's Hono app. */
export type FakeApp = Hono<FakeEnv>;

/** A request context inside the fake. */
export type FakeContext = Context<FakeEnv>;

/** Reads the form body (urlencoded or multipart) as strings and files; empty for other content types. */
export async function readForm(c: FakeContext): Promise<Record<string, unknown>> {
  const type = c.req.header("content-type") ?? "";
  if (!type.includes("application/x-www-form-urlencoded") && !type.includes("multipart/form-data")) return {};
  return (await c.req.parseBody()) as Record<string, unknown>;
}

/** Query parameters merged with form fields (form wins), as the legacy interfaces accept either. */
export async function readParams(c: FakeContext): Promise<Record<string, unknown>> {
  return { ...c.req.query(), ...(await readForm(c)) };
}

/** The JSON body, or why it could not be read. */
export async function readJson(
  c: FakeContext,
): Promise<{ ok: true; value: unknown } | { ok: false; status: number; message: string }> {
  const type = c.req.header("content-type") ?? "";
  if (!type.toLowerCase().includes("application/json")) {
    return { ok: false, status: 415, message: "Content-Type must be application/json" };
  }
  try {
    return { ok: true, value: await c.req.json() };
  } catch {
    return { ok: false, status: 400, message: "Request body is not valid JSON" };
  }
}

/** Whether `value` is a plain JSON object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
