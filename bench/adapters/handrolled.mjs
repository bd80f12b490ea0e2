// Two hand-rolled routes, shared by the framework servers. `createHandRolled`: the minimal equivalent a careful
// developer writes without kirimbayar (constant-time token compare, JSON.parse, a three-field zod schema, an
// lru-cache of seen event ids), kept as context. `createHandRolledSameChecks` (below): the route the goals compare
// with, doing every check the webhook route does.
import { timingSafeEqual } from "node:crypto";
import { parseUntrustedJson, qrisPaymentSuccessEventSchema } from "@kirimbayar/core/webhooks";
import { LRUCache } from "lru-cache";
import { z } from "zod";

export const TOKEN = "bench-webhook-token";
/** Capacity of the hand-rolled route's cache of seen events; the webhook route's store gets the same. */
export const HAND_ROLLED_CACHE_ENTRIES = 100_000;
const expected = Buffer.from(TOKEN);

const qrisEvent = z.object({
  event: z.literal("payment.success"),
  timestamp: z.string(),
  data: z.looseObject({
    qris_history_id: z.union([z.string().min(1), z.number()]),
    amount: z.number().int().nonnegative(),
    status: z.string().optional(),
  }),
});

/** Returns `[status, body]` for one delivery given its token and raw body. */
export function createHandRolled() {
  const seen = new LRUCache({ max: HAND_ROLLED_CACHE_ENTRIES, ttl: 24 * 60 * 60 * 1000 });
  return (token, rawBody) => {
    const given = Buffer.from(typeof token === "string" ? token : "");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return [401, { success: false, message: "unauthorized" }];
    }
    let json;
    try {
      json = JSON.parse(typeof rawBody === "string" ? rawBody : rawBody.toString("utf8"));
    } catch {
      return [400, { success: false, message: "invalid JSON" }];
    }
    const parsed = qrisEvent.safeParse(json);
    if (!parsed.success) return [400, { success: false, message: "invalid payload" }];
    const key = `qris:${parsed.data.event}:${parsed.data.data.qris_history_id}`;
    if (seen.has(key)) return [200, { success: true, message: "duplicate" }];
    seen.set(key, true);
    return [200, { success: true, message: "processed" }];
  };
}

// The hand-rolled route "doing the same checks" (issue 18's wording for the Fastify goal, and the "equal-function"
// route of the Hono decision): everything the webhook route checks, written directly, so that the ratio measures
// what the adapter and the receiver's pipeline add, not extra checks. Strict UTF-8 (a fatal TextDecoder); JSON
// refused with prototype or duplicate keys at any depth (core's exported `parseUntrustedJson`, so both routes run the
// same key check rather than two scanners); the same zod schema as the receiver's for the QR success event (the
// spec's fields, loose); a claim that tells a duplicate of a finished event (200) from one still running (409), the
// no-op async handler awaited, then the event marked done (released on failure, so a retry can run it).
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const PROCESSING = 1;
const DONE = 2;

/** Returns `[status, body]` for one delivery, checking what the webhook route checks. */
export function createHandRolledSameChecks(handler = async () => {}) {
  const seen = new LRUCache({ max: HAND_ROLLED_CACHE_ENTRIES, ttl: 24 * 60 * 60 * 1000 });
  return async (token, rawBody) => {
    const given = Buffer.from(typeof token === "string" ? token : "");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return [401, { success: false, message: "unauthorized" }];
    }
    let text;
    try {
      text = typeof rawBody === "string" ? rawBody : strictUtf8.decode(rawBody);
    } catch {
      return [400, { success: false, message: "invalid UTF-8" }];
    }
    const json = parseUntrustedJson(text);
    if (!json.ok) return [400, { success: false, message: json.reason }];
    const parsed = qrisPaymentSuccessEventSchema.safeParse(json.value);
    if (!parsed.success) return [400, { success: false, message: "invalid payload" }];
    const key = `qris:${parsed.data.event}:${parsed.data.data.qris_history_id}`;
    const state = seen.get(key);
    if (state === DONE) return [200, { success: true, message: "duplicate" }];
    if (state === PROCESSING) return [409, { success: false, message: "in progress" }];
    seen.set(key, PROCESSING);
    try {
      await handler(parsed.data);
    } catch {
      seen.delete(key);
      return [500, { success: false, message: "handler failed" }];
    }
    seen.set(key, DONE);
    return [200, { success: true, message: "processed" }];
  };
}
