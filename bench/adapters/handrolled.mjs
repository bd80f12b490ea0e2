// The "hand-rolled equivalent" a careful developer writes without kirimbayar: constant-time token compare,
// JSON.parse, a zod schema, and an lru-cache of seen event ids. Shared by the three framework servers.
import { timingSafeEqual } from "node:crypto";
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
