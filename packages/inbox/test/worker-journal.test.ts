// The worker tells core which inbox try it runs, so the delivery journal records each try's attempt (origin inbox).
import { inboxStage } from "@kirimbayar/core";
import { MemoryDeliveryJournal } from "@kirimbayar/core/journal";
import { createWebhookReceiver, type InboxMessage } from "@kirimbayar/core/webhooks";
import { expect, it } from "vitest";
import type { InboxDelivery, InboxQueue, InboxVerdict } from "../src/types.js";
import { startInboxWorker } from "../src/worker.js";

/** An inbox in memory: runs each queued message until its verdict is done or dead (retries at once). */
function memoryInbox(messages: InboxMessage[], replayedAt?: number): InboxQueue {
  return {
    engine: "memory",
    name: "journal-inbox",
    inboxStage,
    enqueue: async () => "queued",
    async consume(decide: (delivery: InboxDelivery) => Promise<InboxVerdict>) {
      for (const message of messages) {
        for (let attempt = 1; attempt <= 5; attempt++) {
          const verdict = await decide({ message, attempt, periodStartedAt: replayedAt ?? message.receivedAt });
          if (verdict.kind !== "retry") break;
        }
      }
      return { stop: async () => {} };
    },
    listDeadLetters: async () => [],
    getDeadLetter: async () => undefined,
    replayDeadLetter: async () => false,
    replayAllDeadLetters: async () => 0,
    stats: async () => ({ waiting: 0, active: 0, deadLetters: 0, oldestWaitingAgeMs: 0 }),
    close: async () => {},
  };
}

it("journals each inbox try with its attempt, the failures with their error", async () => {
  const journal = new MemoryDeliveryJournal();
  const qris = createWebhookReceiver({
    source: "qris",
    insecureNoVerification: true,
    logger: { warn: () => {}, error: () => {} },
    journal,
  });
  let tries = 0;
  qris.on("payment.success", () => {
    tries++;
    if (tries < 3) throw new Error(`stock service down (try ${tries})`);
  });
  const message: InboxMessage = {
    key: "qris:payment.success:inbox-1",
    source: "qris",
    body: JSON.stringify({ event: "payment.success", timestamp: "", data: { qris_history_id: "inbox-1", amount: 1 } }),
    receivedAt: Date.now(),
  };
  const worker = await startInboxWorker({
    inbox: memoryInbox([message]),
    receivers: { qris },
    retry: { baseDelayMs: 1, maxDelayMs: 1, periodMs: 60_000 },
    logger: { warn: () => {}, error: () => {} },
  });
  await worker.stop();
  expect(tries).toBe(3);
  const deadline = Date.now() + 2_000;
  let entries = await journal.search({ reference: "inbox-1" });
  while (entries.length < 3 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    entries = await journal.search({ reference: "inbox-1" });
  }
  const story = entries.map((entry) => [entry.origin, entry.attempt, entry.outcome]).sort();
  expect(story).toEqual([
    ["inbox", 1, "failed"],
    ["inbox", 2, "failed"],
    ["inbox", 3, "processed"],
  ]);
  expect(entries.find((entry) => entry.attempt === 2)?.error).toContain("stock service down (try 2)");
});

it("journals the tries of a replayed dead letter with origin replay", async () => {
  const journal = new MemoryDeliveryJournal();
  const qris = createWebhookReceiver({
    source: "qris",
    insecureNoVerification: true,
    logger: { warn: () => {}, error: () => {} },
    journal,
  });
  qris.on("payment.success", () => {});
  const receivedAt = Date.now() - 60_000;
  const message: InboxMessage = {
    key: "qris:payment.success:inbox-replayed",
    source: "qris",
    body: JSON.stringify({
      event: "payment.success",
      timestamp: "",
      data: { qris_history_id: "inbox-replayed", amount: 1 },
    }),
    receivedAt,
  };
  // The engines restart the retry period at the replay: periodStartedAt is the replay's time, not the arrival's.
  const worker = await startInboxWorker({
    inbox: memoryInbox([message], receivedAt + 30_000),
    receivers: { qris },
    logger: { warn: () => {}, error: () => {} },
  });
  await worker.stop();
  const deadline = Date.now() + 2_000;
  let entries = await journal.search({ reference: "inbox-replayed" });
  while (entries.length < 1 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    entries = await journal.search({ reference: "inbox-replayed" });
  }
  expect(entries.map((entry) => [entry.origin, entry.attempt, entry.outcome])).toEqual([["replay", 1, "processed"]]);
});
