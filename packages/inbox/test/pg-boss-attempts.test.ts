// pg-boss keeps a dead letter's tries across a worker that dies mid-event: the job expires, pg-boss replaces its
// output ("job failed by timeout in active state"), and the tries before must still be listed.
import type { InboxMessage } from "@kirimbayar/core/webhooks";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { InboxDelivery, InboxVerdict } from "../src/types.js";
import { type EngineUnderTest, pgBossEngine } from "./engines.js";

let engine: EngineUnderTest;
beforeAll(async () => {
  engine = await pgBossEngine();
}, 60_000);
afterAll(async () => {
  await engine?.close();
}, 30_000);

it("lists every try of a dead letter, including those before a try whose worker died", async () => {
  const inbox = await engine.inbox(); // expireInSeconds 2, maintenance every second
  const message: InboxMessage = {
    key: "qris:payment.success:expired-1",
    source: "qris",
    body: "{}",
    receivedAt: Date.now(),
  };
  await inbox.enqueue(message);
  // Try 1 fails; try 2 never ends (its worker "died": the job expires); try 3 is dead.
  const hung = new Promise<InboxVerdict>(() => {});
  const decide = async ({ attempt }: InboxDelivery): Promise<InboxVerdict> => {
    if (attempt === 1) return { kind: "retry", error: "first failure", delayMs: 0 };
    if (attempt === 2) return hung;
    return { kind: "dead", error: "third failure" };
  };
  const stuck = await inbox.consume(decide, { concurrency: 1 });
  for (let i = 0; i < 100 && (await inbox.stats()).active === 0; i++) await new Promise((r) => setTimeout(r, 100));
  // The first consumer is stuck in try 2; a second one takes the job once it expired.
  const second = await inbox.consume(decide, { concurrency: 1 });
  try {
    for (let i = 0; i < 200 && (await inbox.stats()).deadLetters === 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    const [letter] = await inbox.listDeadLetters();
    expect(letter?.attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    expect(letter?.attempts[0]?.error).toBe("first failure");
    expect(letter?.attempts[2]?.error).toBe("third failure");
  } finally {
    await second.stop({ timeoutMs: 1_000 });
    await stuck.stop({ timeoutMs: 100 });
  }
}, 60_000);
