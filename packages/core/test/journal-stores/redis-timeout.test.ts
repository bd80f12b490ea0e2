// A Redis that never answers: the journal's write gives up at its operation time limit with a typed error, so a
// frozen Redis never holds a batch (or close()) for longer.
import { expect, it } from "vitest";
import { DeliveryJournalWriteError, RedisDeliveryJournal } from "../../src/redis.js";
import { entry } from "./contract.js";

it("rejects a write Redis never answers within operationTimeoutMs, with a typed error", async () => {
  const neverAnswers = { call: () => new Promise<unknown>(() => {}) };
  const journal = new RedisDeliveryJournal({ client: neverAnswers as never, operationTimeoutMs: 50 });
  const started = performance.now();
  const written = journal.record([entry({ references: { qris_history_id: "frozen-redis" } })]);
  await expect(written).rejects.toBeInstanceOf(DeliveryJournalWriteError);
  await expect(written).rejects.toThrow(/did not answer within 50 ms/);
  expect(performance.now() - started).toBeLessThan(2_000);
});
