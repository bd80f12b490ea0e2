// A real inbox behind the console: BullMQ on a throw-away redis-server, a receiver in inbox mode journalling into the
// memory journal, and the inbox worker. An event whose handler keeps failing becomes a dead letter; the console shows
// it in the reference's story, replays it through a form POST, and the worker applies it exactly once.
import { type JournalEntry, MemoryDeliveryJournal } from "@kirimbayar/core/journal";
import { createWebhookReceiver, MemoryIdempotencyStore, tokenVerifier } from "@kirimbayar/core/webhooks";
import { type InboxWorker, startInboxWorker } from "@kirimbayar/inbox";
import { createBullMqInbox } from "@kirimbayar/inbox/bullmq";
import { startRedisServer, type TestRedisServer } from "@kirimbayar/test-redis-server";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createWebhookConsole, type WebhookConsole } from "../src/index.js";
import { authorizeByHeader, BASE, get, post, tokenOf, WEBHOOK_TOKEN } from "./helpers.js";

const quiet = { warn: () => {}, error: () => {}, info: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached in ${timeoutMs} ms`);
    await sleep(50);
  }
}

let redis: TestRedisServer | undefined;
let inbox: Awaited<ReturnType<typeof createBullMqInbox>> | undefined;
let worker: InboxWorker | undefined;

beforeAll(async () => {
  redis = await startRedisServer();
  inbox = await createBullMqInbox({
    connection: { host: "127.0.0.1", port: redis.port },
    name: `console-replay-${process.pid}`,
    lockDurationMs: 2_000,
    stalledIntervalMs: 500,
  });
}, 30_000);

afterAll(async () => {
  await worker?.stop({ timeoutMs: 5_000 });
  await inbox?.close();
  await redis?.stop();
}, 30_000);

it("shows a real dead letter in the story, and a replay through the console applies it once", async () => {
  if (inbox === undefined) throw new Error("the inbox did not start (see beforeAll)");
  const journal = new MemoryDeliveryJournal({ instance: "web-1" });
  let broken = true;
  const applied: string[] = [];
  const receiver = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [WEBHOOK_TOKEN], in: "query", name: "token" })],
    idempotency: { store: new MemoryIdempotencyStore() },
    inbox,
    journal,
    logger: quiet,
  }).on("payment.success", (event) => {
    if (broken) throw new Error("stock service 503");
    applied.push(String(event.data.qris_history_id));
  });
  // Tries for about 300 ms, then a dead letter.
  worker = await startInboxWorker({
    inbox,
    receivers: { qris: receiver },
    retry: { baseDelayMs: 50, maxDelayMs: 100, periodMs: 300 },
    logger: quiet,
  });
  const answer = await receiver.handle({
    method: "POST",
    url: `/webhooks/qris?token=${WEBHOOK_TOKEN}`,
    headers: { "content-type": "application/json" },
    rawBody: JSON.stringify({
      event: "payment.success",
      timestamp: "2026-03-01T03:00:00Z",
      data: {
        qris_history_id: "h-inbox-dead",
        qris_id: "0c6b1a2e-7a7e-4f7e-9d59-1f1f0e5c4b3a",
        amount: 100_001,
        original_amount: 100_000,
        status: "paid",
        paid_at: "2026-03-01T02:59:58Z",
        payment_method: "QRIS",
        payment_provider: "DANA",
        created_at: "2026-03-01T02:50:00Z",
      },
    }),
  });
  expect(answer.status).toBe(200);
  const [letter] = await until(
    () => inbox!.listDeadLetters(),
    (letters) => letters.length === 1,
    "a dead letter",
  );

  const webhookConsole: WebhookConsole = createWebhookConsole({
    journal,
    authorize: authorizeByHeader,
    basePath: BASE,
    inboxes: { qris: inbox },
  });
  const before = await (await webhookConsole.fetch(get(`${BASE}/search?q=h-inbox-dead`))).text();
  expect(before).toContain("dead letter");
  expect(before).toContain(`value="${letter?.id}"`);
  expect(before).toMatch(/Try 1, .*stock service 503/);
  // As many tries as fit in the retry period (2 or 3 with the jitter).
  expect(before).toMatch(
    /The payment.success event is not processed yet: \d tries failed, the last one answered 500\./,
  );
  expect(before).toContain("It ran out of tries and is a dead letter of the inbox: fix the cause, then replay it.");
  expect(before).toContain("the console was given no idempotency store for this source.");
  const overview = await (await webhookConsole.fetch(get(`${BASE}/`))).text();
  expect(overview).toMatch(/<dt>Dead letters<\/dt><dd><a [^>]*>1<\/a>/);

  broken = false;
  const replay = await webhookConsole.fetch(
    post(`${BASE}/actions/replay`, { csrf: tokenOf(before), source: "qris", id: letter?.id ?? "", q: "h-inbox-dead" }),
  );
  expect(replay.status).toBe(303);
  expect(replay.headers.get("location")).toBe(`${BASE}/search?q=h-inbox-dead&notice=replayed`);
  await until(
    async () => applied.length,
    (count) => count > 0,
    "the replayed event applied",
  );
  await until(
    () => journal.search({ reference: "h-inbox-dead" }),
    (entries: JournalEntry[]) => entries.some((entry) => entry.outcome === "processed"),
    "the replayed event journalled",
  );
  expect(applied).toEqual(["h-inbox-dead"]);
  const after = await (await webhookConsole.fetch(get(`${BASE}/search?q=h-inbox-dead&notice=replayed`))).text();
  // The worker journals the tries after a replay with origin "replay".
  expect(after).toMatch(/The payment.success event was processed after its dead letter was replayed/);
  expect(after).not.toContain('<span class="badge failed">dead letter</span>');
  expect(await inbox.listDeadLetters()).toEqual([]);
  // The same form again: the dead letter is gone, nothing runs twice.
  const again = await webhookConsole.fetch(
    post(`${BASE}/actions/replay`, { csrf: tokenOf(before), source: "qris", id: letter?.id ?? "" }),
  );
  expect(again.headers.get("location")).toBe(`${BASE}/dead-letters?notice=replay_missing`);
  await sleep(300);
  expect(applied).toEqual(["h-inbox-dead"]);
}, 40_000);
