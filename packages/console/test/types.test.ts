// What the console accepts is typed structurally: the real inbox engines, reconciler and stores fit without casts
// (checked by the package's typecheck), and a store without `inspect` is shown as such.
import type { Reconciler } from "@kirimbayar/core";
import type { PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import type { RedisIdempotencyStore } from "@kirimbayar/core/redis";
import { MemoryIdempotencyStore } from "@kirimbayar/core/webhooks";
import type { InboxQueue } from "@kirimbayar/inbox";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { ConsoleInbox, ConsoleReconciler, WebhookConsoleOptions } from "../src/index.js";
import { BASE, entry, get, NOW, setup } from "./helpers.js";

describe("what the console accepts", () => {
  it("takes an InboxQueue, a Reconciler and the SQL and Redis stores as they are", () => {
    expectTypeOf<InboxQueue>().toExtend<ConsoleInbox>();
    expectTypeOf<Reconciler>().toExtend<ConsoleReconciler>();
    expectTypeOf<PostgresIdempotencyStore>().toExtend<
      NonNullable<NonNullable<WebhookConsoleOptions["stores"]>["qris"]>
    >();
    expectTypeOf<RedisIdempotencyStore>().toExtend<
      NonNullable<NonNullable<WebhookConsoleOptions["stores"]>["orders"]>
    >();
  });

  it("says a store without inspect cannot show its records, and shows a real store's record", async () => {
    const bare = { claim: () => ({ state: "claimed" as const }), complete: () => true, release: () => true };
    const memory = new MemoryIdempotencyStore();
    await memory.claim("payment:k-2", "owner-1", 60_000);
    await memory.complete("payment:k-2", "owner-1", 60_000);
    const { console, journal } = setup({ stores: { qris: bare, payment: memory } });
    await journal.record([
      entry({ at: NOW - 2_000, references: { order_id: "o-1" }, idempotencyKey: "qris:k-1" }),
      entry({ at: NOW - 1_000, source: "payment", references: { order_id: "o-1" }, idempotencyKey: "payment:k-2" }),
    ]);
    const page = await (await console.fetch(get(`${BASE}/search?q=o-1`))).text();
    expect(page).toMatch(
      /qris:k-1<\/code> <span class="muted">\(QR payments \(qris\)\)<\/span>: this store cannot show its records\./,
    );
    expect(page).toMatch(
      /payment:k-2<\/code>.*<strong>completed: a new delivery of this event is a duplicate<\/strong>/,
    );
  });
});
