// A campaign of deliveries in inbox mode across a Redis failover, for the BullMQ inbox on Sentinel and on Cluster:
// two app instances (each its own inbox connection, receiver, idempotency-store client and worker) take deliveries
// of every event plus 30 % duplicates at a steady rate; the provider retries each non-200 answer every 200-400 ms,
// for a minute after the fault ended. A 200 means the event was queued; the workers then apply it, a little slower
// than events arrive, so that a backlog is queued when the master dies.
//
// Counted from the handler's side once the queue drained (or the drain timed out): lost (queued and answered 200,
// never applied: the failover took the job back), double (applied twice), of those the runs that started after the
// store had confirmed the event's completion (the store's `complete` resolved true), and the deliveries answered 200
// between the cut and the kill (on jobs no replica had).
import { createWebhookReceiver, type IdempotencyStore, tokenVerifier } from "@kirimbayar/core/webhooks";
import type { InboxQueue } from "../../src/types.js";
import { startInboxWorker } from "../../src/worker.js";

const TOKEN = "inbox-failover-token";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const between = (min: number, max: number) => min + Math.random() * (max - min);
const seconds = (ms: number) => Math.round(ms / 100) / 10;
const quiet = { warn: () => {}, error: () => {}, info: () => {} };

export interface InboxFault {
  readonly at: number;
  readonly windowOpenedAt?: number;
  readonly failoverSeconds: number | null;
}

export interface InboxFailoverOptions {
  readonly name: string;
  readonly events: number;
  readonly instances: readonly { readonly inbox: InboxQueue; readonly store: IdempotencyStore }[];
  readonly fault: () => Promise<InboxFault>;
  readonly deliveriesPerSecond: number;
  /**
   * Events each worker runs at once (default 4) and how long the handler works (default 30-80 ms): slower than the
   * deliveries come, so that a backlog waits in the queue when the master dies, as when an inbox is needed.
   */
  readonly workerConcurrency?: number;
  readonly handlerMs?: readonly [number, number];
  /** How long the workers get to apply everything after the last delivery was answered (default 60 s). */
  readonly drainTimeoutMs?: number;
}

export interface InboxFailoverResult {
  readonly name: string;
  readonly events: number;
  readonly deliveries: number;
  readonly statuses: Record<number, number>;
  readonly lost: number;
  readonly double: number;
  /** Handler runs that started after the store confirmed the event completed. */
  readonly rerunsAfterCompletion: number;
  readonly answeredInWindow: number;
  readonly failoverSeconds: number | null;
  /** From the fault until the last event was applied. */
  readonly appliedAllSeconds: number | null;
  readonly abandoned: number;
}

// The store, noting when each key's completion was confirmed.
function confirming(store: IdempotencyStore, completedAt: Map<string, number>): IdempotencyStore {
  return {
    claim: (key, owner, leaseMs) => store.claim(key, owner, leaseMs),
    release: (key, owner, retentionMs) => store.release(key, owner, retentionMs),
    complete: async (key, owner, retentionMs) => {
      const done = await store.complete(key, owner, retentionMs);
      if (done && !completedAt.has(key)) completedAt.set(key, performance.now());
      return done;
    },
  };
}

export async function runInboxFailoverCampaign(options: InboxFailoverOptions): Promise<InboxFailoverResult> {
  const applied = new Map<string, number>();
  const completedAt = new Map<string, number>();
  let rerunsAfterCompletion = 0;
  let lastAppliedAt = 0;
  const receivers = options.instances.map(({ inbox, store }) =>
    createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      inbox,
      idempotency: { store: confirming(store, completedAt), leaseMs: 5_000 },
      logger: quiet,
    }).on("payment.success", async (event, context) => {
      if (completedAt.has(context.idempotencyKey)) rerunsAfterCompletion += 1;
      await sleep(between(...(options.handlerMs ?? [30, 80])));
      const id = String(event.data.qris_history_id);
      applied.set(id, (applied.get(id) ?? 0) + 1);
      lastAppliedAt = performance.now();
    }),
  );
  const workers = await Promise.all(
    options.instances.map(({ inbox }, index) =>
      startInboxWorker({
        inbox,
        receivers: { qris: receivers[index] as (typeof receivers)[number] },
        concurrency: options.workerConcurrency ?? 4,
        retry: { baseDelayMs: 100, maxDelayMs: 1_000, periodMs: 10 * 60_000 },
        logger: quiet,
      }),
    ),
  );

  const ids = Array.from({ length: options.events }, (_, i) => `${options.name}-${i}`);
  const queue = [...ids, ...ids.filter(() => Math.random() < 0.3)].sort(() => Math.random() - 0.5);
  const statuses: Record<number, number> = {};
  const answered200At: number[] = [];
  let faultStarted: Promise<InboxFault> | undefined;
  let faultEndedAt: number | undefined;
  let abandoned = 0;
  const startedAt = performance.now();
  const hardDeadline = startedAt + 4 * 60_000;

  async function deliver(id: string): Promise<void> {
    const rawBody = JSON.stringify({
      event: "payment.success",
      timestamp: "2026-03-01T03:00:00Z",
      data: { qris_history_id: id, amount: 100_001, status: "paid", paid_at: "2026-03-01T02:59:58Z" },
    });
    for (let attempt = 0; attempt < 10_000; attempt++) {
      const receiver = receivers[Math.floor(Math.random() * receivers.length)] as (typeof receivers)[number];
      const response = await receiver.handle({
        method: "POST",
        url: `/webhooks/qris?token=${TOKEN}`,
        headers: { "content-type": "application/json" },
        rawBody,
      });
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      if (response.status === 200) {
        answered200At.push(performance.now());
        return;
      }
      const now = performance.now();
      if (now > hardDeadline || (faultEndedAt !== undefined && now > faultEndedAt + 60_000)) break;
      await sleep(between(200, 400));
    }
    abandoned += 1;
  }

  const deliveries: Promise<void>[] = [];
  for (let i = 0; i < queue.length; i++) {
    const wait = startedAt + (i * 1_000) / options.deliveriesPerSecond - performance.now();
    if (wait > 0) await sleep(wait);
    deliveries.push(deliver(queue[i] as string));
    if (faultStarted === undefined && i + 1 >= queue.length / 3) {
      faultStarted = options.fault().then((outcome) => {
        faultEndedAt = performance.now();
        return outcome;
      });
    }
  }
  const fault = await (faultStarted as Promise<InboxFault>);
  await Promise.all(deliveries);
  const drainUntil = performance.now() + (options.drainTimeoutMs ?? 60_000);
  while (ids.some((id) => !applied.has(id)) && performance.now() < drainUntil) await sleep(100);
  // A moment more for a second application of anything still running.
  await sleep(2_000);
  await Promise.all(workers.map((worker) => worker.stop({ timeoutMs: 5_000 })));

  const windowOpenedAt = fault.windowOpenedAt ?? fault.at;
  const result: InboxFailoverResult = {
    name: options.name,
    events: options.events,
    deliveries: queue.length,
    statuses,
    lost: ids.filter((id) => !applied.has(id)).length,
    double: ids.filter((id) => (applied.get(id) ?? 0) > 1).length,
    rerunsAfterCompletion,
    answeredInWindow: answered200At.filter((at) => at >= windowOpenedAt && at <= fault.at).length,
    failoverSeconds: fault.failoverSeconds,
    appliedAllSeconds: ids.every((id) => applied.has(id)) ? seconds(lastAppliedAt - fault.at) : null,
    abandoned,
  };
  console.log(`[inbox-failover] ${JSON.stringify(result)}`);
  return result;
}
