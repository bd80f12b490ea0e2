// A delivery campaign across a Redis failover, shared by the Sentinel and Cluster tests: two app instances (each a
// real HTTP server on loopback with its own receiver and its own Redis client) share one Redis store; a provider
// simulator sends every event once plus a share of duplicates at a steady rate, each delivery to a random instance,
// and retries every non-200 answer every few hundred ms until it is answered 200, for at least `retryForMsAfterFault`
// after the topology is whole again. The fault (cut the replication link, kill the master, ...) starts once a third
// of the deliveries went out.
//
// What it counts, from the handler's side and the server's side (one clock):
// - lost: events whose handler never finished;
// - double: events whose handler finished twice or more;
// - re-runs after a 200: handler runs that started after one of the event's deliveries was answered 200 (the goal
//   of `replicaAcknowledgement` is none);
// - other re-runs: further runs that started before any 200 of the event (a handler that finished while its
//   completion failed, then the retry), which the non-transactional mode allows;
// - answered in the window: deliveries answered 200 between the fault's `windowOpenedAt` (the cut) and its `at`
//   (the kill), i.e. on records no replica had;
// - failover seconds (from the fault), first 200 after the fault, and recovery: from the fault until every event
//   first sent before it is answered 200.
import { Agent, createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { DeliveryJournal } from "../../src/journal.js";
import type { IdempotencyStore } from "../../src/webhooks.js";
import { createWebhookReceiver, tokenVerifier, type WebhookReceiver } from "../../src/webhooks.js";
import { qrisSuccess } from "./webhook-requests.js";

const TOKEN = "failover-campaign-token";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const between = ([min, max]: readonly [number, number]) => min + Math.random() * (max - min);
const seconds = (ms: number) => Math.round(ms / 100) / 10;

/** What a fault reports once the topology is whole again (times from performance.now()). */
export interface FaultOutcome {
  /** When the master died (or the failover was asked for). */
  readonly at: number;
  /** When records stopped reaching a replica (the cut), if before `at`. */
  readonly windowOpenedAt?: number;
  /** Seconds from `at` until the new master was in charge (as the harness measured it). */
  readonly failoverSeconds: number | null;
}

export interface FailoverCampaignOptions {
  readonly name: string;
  readonly events: number;
  /** Share of events delivered a second time (default 0.3). */
  readonly duplicateShare?: number;
  /** One store per app instance, each over its own client. */
  readonly stores: readonly IdempotencyStore[];
  readonly fault: () => Promise<FaultOutcome>;
  /** Deliveries sent per second (first tries). */
  readonly deliveriesPerSecond: number;
  /** Pause before the provider's next try (default 200–400 ms). */
  readonly retryDelayMs?: readonly [number, number];
  /** How long deliveries are retried after the fault ended (default 60 s). */
  readonly retryForMsAfterFault?: number;
  readonly leaseMs?: number;
  /** How long the handler works before its effect (default 2–20 ms). */
  readonly handlerMs?: readonly [number, number];
  /**
   * A delivery journal per instance (beside its store), and how to count the entries Redis holds at the end: the
   * campaign then also reports how many entries the journal acknowledged and lost.
   */
  readonly journals?: {
    readonly instances: readonly DeliveryJournal[];
    /** Every entry Redis holds at the end, as stored (JSON-parsed). */
    readonly entries: () => Promise<readonly Record<string, unknown>[]>;
  };
}

/** What became of the journal's entries (one per answered delivery). */
export interface JournalFigures {
  /** Deliveries the instances answered: one entry each. */
  readonly expected: number;
  /** Entries whose write Redis acknowledged. */
  readonly acknowledged: number;
  /** Entries whose write failed (Redis away, or the failover under way): reported through onError. */
  readonly failed: number;
  /** Entries Redis holds at the end. */
  readonly present: number;
  /** Acknowledged but not there at the end: taken back by the failover. */
  readonly acknowledgedThenLost: number;
  /** Reported failed (the write timed out) but there at the end: Redis ran it late. */
  readonly failedButPresent: number;
}

export interface FailoverCampaignResult {
  readonly name: string;
  readonly events: number;
  readonly deliveries: number;
  readonly statuses: Record<number, number>;
  readonly lost: number;
  readonly double: number;
  readonly rerunsAfter200: number;
  readonly otherReruns: number;
  readonly answeredInWindow: number;
  readonly failoverSeconds: number | null;
  readonly firstSuccessAfterFaultSeconds: number | null;
  readonly recoverySeconds: number | null;
  /** Deliveries still not answered 200 when the provider gave up. */
  readonly abandoned: number;
  readonly journal?: JournalFigures;
}

interface Run {
  readonly startedAt: number;
  finished: boolean;
}

// `answered` hears of every answer: with the event's id when it was a 200.
async function listen(receiver: WebhookReceiver<"qris">, answered: (id?: string) => void): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const rawBody = Buffer.concat(chunks);
      const response = await receiver.handle({
        method: req.method ?? "POST",
        url: req.url ?? "/",
        headers: req.headers,
        rawBody,
        remoteAddress: req.socket.remoteAddress,
      });
      answered(response.status === 200 ? String(JSON.parse(rawBody.toString()).data.qris_history_id) : undefined);
      res.writeHead(response.status, response.headers);
      res.end(response.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

function post(agent: Agent, port: number, body: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        host: "127.0.0.1",
        port,
        method: "POST",
        path: `/webhooks/qris?token=${TOKEN}`,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        timeout: 15_000,
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    // The provider gives up on a delivery that does not answer, and tries again later.
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(0));
    req.end(body);
  });
}

// What identifies a journal entry, before and after the journal stored it (it rounds `at`).
function fingerprint(entry: Record<string, unknown>): string {
  const at = Math.round(Number(entry.at));
  return `${at}|${String(entry.idempotencyKey)}|${String(entry.httpStatus)}|${String(entry.outcome)}|${String(entry.attempt)}`;
}

/** Runs the campaign and resolves with its figures; also prints them as one JSON line. */
export async function runFailoverCampaign(options: FailoverCampaignOptions): Promise<FailoverCampaignResult> {
  const retryDelay = options.retryDelayMs ?? [200, 400];
  const retryAfterFault = options.retryForMsAfterFault ?? 60_000;
  const handlerMs = options.handlerMs ?? [2, 20];
  const runs = new Map<string, Run[]>();
  const first200 = new Map<string, number>();
  const answered200At: number[] = [];

  let answered = 0;
  // Each entry by what identifies it once stored (a multiset: two entries could share it).
  const acknowledgedEntries = new Map<string, number>();
  const failedEntries = new Map<string, number>();
  const note = (into: Map<string, number>, entries: readonly Record<string, unknown>[]) => {
    for (const entry of entries) into.set(fingerprint(entry), (into.get(fingerprint(entry)) ?? 0) + 1);
  };
  for (const journal of options.journals?.instances ?? []) {
    const record = journal.record.bind(journal);
    journal.record = (entries, transaction) =>
      record(entries, transaction).then(
        () => note(acknowledgedEntries, entries as unknown as Record<string, unknown>[]),
        (error: unknown) => {
          note(failedEntries, entries as unknown as Record<string, unknown>[]);
          throw error;
        },
      );
  }
  const receivers = options.stores.map((store, index) =>
    createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      idempotency: { store, leaseMs: options.leaseMs ?? 5_000 },
      logger: { warn: () => {}, error: () => {} },
      ...(options.journals === undefined ? {} : { journal: options.journals.instances[index] as DeliveryJournal }),
    }).on("payment.success", async (event) => {
      const id = String(event.data.qris_history_id);
      const run: Run = { startedAt: performance.now(), finished: false };
      runs.set(id, [...(runs.get(id) ?? []), run]);
      await sleep(between(handlerMs));
      run.finished = true;
    }),
  );
  const servers = await Promise.all(
    receivers.map((receiver) =>
      listen(receiver, (id) => {
        answered += 1;
        if (id === undefined) return;
        const now = performance.now();
        answered200At.push(now);
        if (!first200.has(id)) first200.set(id, now);
      }),
    ),
  );
  const ports = servers.map((server) => (server.address() as AddressInfo).port);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });

  const ids = Array.from({ length: options.events }, (_, i) => `${options.name}-${i}`);
  const duplicates = ids.filter(() => Math.random() < (options.duplicateShare ?? 0.3));
  const queue = [...ids, ...duplicates].sort(() => Math.random() - 0.5);
  const statuses: Record<number, number> = {};
  const firstSentAt = new Map<string, number>();
  let faultStarted: Promise<FaultOutcome> | undefined;
  let faultEndedAt: number | undefined;
  let abandoned = 0;
  const startedAt = performance.now();
  // A bound on the whole campaign, whatever the fault does: the provider's minute after it, and three more.
  const hardDeadline = startedAt + 4 * 60_000;

  async function deliver(id: string): Promise<void> {
    const body = JSON.stringify(qrisSuccess({ qris_history_id: id }));
    for (let attempt = 0; attempt < 10_000; attempt++) {
      const status = await post(agent, ports[Math.floor(Math.random() * ports.length)] as number, body);
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status === 200) return;
      const now = performance.now();
      if (now > hardDeadline || (faultEndedAt !== undefined && now > faultEndedAt + retryAfterFault)) break;
      await sleep(between(retryDelay));
    }
    abandoned += 1;
  }

  const deliveries: Promise<void>[] = [];
  for (let i = 0; i < queue.length; i++) {
    const due = startedAt + (i * 1_000) / options.deliveriesPerSecond;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const id = queue[i] as string;
    if (!firstSentAt.has(id)) firstSentAt.set(id, performance.now());
    deliveries.push(deliver(id));
    if (faultStarted === undefined && i + 1 >= queue.length / 3) {
      faultStarted = options.fault().then((outcome) => {
        faultEndedAt = performance.now();
        return outcome;
      });
    }
  }
  const fault = await (faultStarted as Promise<FaultOutcome>);
  await Promise.all(deliveries);
  let journal: JournalFigures | undefined;
  if (options.journals !== undefined) {
    // Entries are written behind the answers: what is still buffered goes out now (or fails).
    await Promise.all(
      options.journals.instances.map((instance) =>
        (instance as { flush?: () => Promise<void> }).flush?.().catch(() => {}),
      ),
    );
    const stored = await options.journals.entries();
    const present = new Map<string, number>();
    note(present, stored);
    const sum = (counts: Map<string, number>) => [...counts.values()].reduce((total, count) => total + count, 0);
    // Per fingerprint: acknowledged ones beyond what is there were lost; what is there beyond the acknowledged ones
    // came from writes reported failed.
    let acknowledgedThenLost = 0;
    let failedButPresent = 0;
    for (const [print, count] of acknowledgedEntries)
      acknowledgedThenLost += Math.max(0, count - (present.get(print) ?? 0));
    for (const [print, count] of failedEntries) {
      const extra = (present.get(print) ?? 0) - (acknowledgedEntries.get(print) ?? 0);
      failedButPresent += Math.min(count, Math.max(0, extra));
    }
    journal = {
      expected: answered,
      acknowledged: sum(acknowledgedEntries),
      failed: sum(failedEntries),
      present: stored.length,
      acknowledgedThenLost,
      failedButPresent,
    };
  }
  agent.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));

  let lost = 0;
  let double = 0;
  let rerunsAfter200 = 0;
  let otherReruns = 0;
  for (const id of ids) {
    const all = runs.get(id) ?? [];
    const finished = all.filter((run) => run.finished).length;
    if (finished === 0) lost += 1;
    if (finished > 1) double += 1;
    const answeredAt = first200.get(id) ?? Number.POSITIVE_INFINITY;
    const afterOk = all.filter((run) => run.startedAt > answeredAt).length;
    rerunsAfter200 += afterOk;
    otherReruns += Math.max(0, all.length - 1 - afterOk);
  }
  const windowOpenedAt = fault.windowOpenedAt ?? fault.at;
  const answeredInWindow = answered200At.filter((at) => at >= windowOpenedAt && at <= fault.at).length;
  const firstAfter = answered200At.filter((at) => at > fault.at).sort((a, b) => a - b)[0];
  const hit = ids.filter((id) => (firstSentAt.get(id) ?? Number.POSITIVE_INFINITY) < fault.at);
  const lastApplied = Math.max(fault.at, ...hit.map((id) => first200.get(id) ?? Number.POSITIVE_INFINITY));
  const result: FailoverCampaignResult = {
    name: options.name,
    events: options.events,
    deliveries: queue.length,
    statuses,
    lost,
    double,
    rerunsAfter200,
    otherReruns,
    answeredInWindow,
    failoverSeconds: fault.failoverSeconds,
    firstSuccessAfterFaultSeconds: firstAfter === undefined ? null : seconds(firstAfter - fault.at),
    recoverySeconds: Number.isFinite(lastApplied) ? seconds(lastApplied - fault.at) : null,
    abandoned,
    ...(journal === undefined ? {} : { journal }),
  };
  console.log(`[failover] ${JSON.stringify(result)}`);
  return result;
}
