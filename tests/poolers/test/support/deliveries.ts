// The QR payments campaign of issue 37: an Express shop receiving QRIS `payment.success` webhooks through one set-up,
// and a provider delivering N events, a share of them twice, K at a time, each delivery tried again (up to `tries`)
// while it is not answered 200.
import type { Server } from "node:http";
import { createWebhookReceiver, tokenVerifier, type WebhookLogger } from "@kirimbayar/core/webhooks";
import { createWebhookRouter } from "@kirimbayar/express";
import { fixtures } from "@kirimbayar/testing";
import express from "express";
import type { Shop } from "./setups.js";

export const TOKEN = "pooler-campaign-token";

/** Everything a logger was told, by level. */
export interface CapturedLog extends WebhookLogger {
  readonly warnings: string[];
  readonly errors: string[];
}

export function capturedLog(): CapturedLog {
  const warnings: string[] = [];
  const errors: string[] = [];
  return {
    warnings,
    errors,
    warn: (message, details) => warnings.push(describe(message, details)),
    error: (message, details) => errors.push(describe(message, details)),
    debug: () => {},
  };
}

function describe(message: string, details?: Record<string, unknown>): string {
  const error = details?.error as { message?: string; cause?: { message?: string; code?: string } } | undefined;
  const cause = error?.cause;
  return error === undefined
    ? message
    : `${message}: ${error.message ?? ""}${cause ? ` (cause: ${cause.code ?? ""} ${cause.message ?? ""})` : ""}`;
}

/**
 * The receiver's errors but one kind: an entry the pooler refused inside a delivery's transaction (a journal entry in
 * flight when the pool switched). The receiver then runs that delivery again without it and records it after the
 * answer, as for any failed entry; the pool's later entries go unnamed.
 */
export const unexpectedErrors = (errors: readonly string[]) =>
  errors.filter((error) => !/^Could not journal a webhook delivery.*\((cause: )?(42P05|26000)/.test(error));

/** A QRIS `payment.success` body (the testing package's fixture, valid by the receiver's schema). */
export const qrisPaid = (historyId: string): string =>
  JSON.stringify(fixtures.qrisPaymentSuccess({ qris_history_id: historyId }));

/** The shop's Express app on 127.0.0.1, its QRIS receiver on `shop`; the receiver logs to `log`. */
export async function startShop(
  shop: Shop,
  log: CapturedLog,
): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const qris = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
    idempotency: { store: shop.store, transactional: shop.transactional },
    ...(shop.journal ? { journal: shop.journal } : {}),
    logger: log,
  });
  qris.on("payment.success", (event, ctx) => shop.markPaid(String(event.data.qris_history_id), ctx));
  const app = express().use("/webhooks", createWebhookRouter({ qris }));
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/webhooks/qris?token=${TOKEN}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What the provider saw. */
export interface CampaignResult {
  /** Every HTTP request sent (tries included). */
  readonly requests: number;
  /** Answers by status. */
  readonly byStatus: Readonly<Record<number, number>>;
  /** Answers 500 and above. */
  readonly answered5xx: number;
  /** Events none of whose deliveries was answered 200 within its tries. */
  readonly neverAnswered200: readonly string[];
  readonly seconds: number;
}

export interface CampaignOptions {
  /** History ids are `<prefix>-<n>`. */
  readonly prefix: string;
  readonly events?: number;
  /** Share of the events delivered twice (default 0.3). */
  readonly duplicateShare?: number;
  /** Deliveries in flight at once (default 10). */
  readonly concurrency?: number;
  /** Tries of one delivery while it is not answered 200 (default 3). */
  readonly tries?: number;
  readonly retryDelayMs?: number;
  /** A try that gets no answer (connection refused, reset) counts as status 0 and is tried again. */
  readonly requestTimeoutMs?: number;
}

/** The events' history ids of a campaign. */
export function historyIds(prefix: string, events: number): string[] {
  return Array.from({ length: events }, (_, n) => `${prefix}-${n}`);
}

/** What the provider counts while it delivers the events of `ids`: its requests, the answers by status. */
function providerTally(ids: readonly string[]) {
  const byStatus: Record<number, number> = {};
  const answered200 = new Set<string>();
  let requests = 0;
  const started = Date.now();
  return {
    /** One try of the event's delivery to `url`: its answer's status, 0 when none came (refused, reset, timed out). */
    async post(url: string, id: string, timeoutMs: number): Promise<number> {
      requests++;
      let status = 0;
      try {
        const response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: qrisPaid(id),
          signal: AbortSignal.timeout(timeoutMs),
        });
        status = response.status;
        await response.arrayBuffer();
      } catch {
        status = 0;
      }
      byStatus[status] = (byStatus[status] ?? 0) + 1;
      if (status === 200) answered200.add(id);
      return status;
    },
    result(): CampaignResult {
      return {
        requests,
        byStatus,
        answered5xx: Object.entries(byStatus)
          .filter(([status]) => Number(status) >= 500)
          .reduce((sum, [, count]) => sum + count, 0),
        neverAnswered200: ids.filter((id) => !answered200.has(id)),
        seconds: (Date.now() - started) / 1000,
      };
    },
  };
}

/**
 * Delivers the campaign: every event once, `duplicateShare` of them twice (the second copy sometimes right behind the
 * first, so both are in flight at once, sometimes much later), `concurrency` at a time.
 */
export async function deliverCampaign(url: string, options: CampaignOptions): Promise<CampaignResult> {
  const events = options.events ?? 100;
  const tries = options.tries ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 50;
  const ids = historyIds(options.prefix, events);
  const share = options.duplicateShare ?? 0.3;
  const queue: string[] = [];
  const later: [number, string][] = [];
  ids.forEach((id, n) => {
    queue.push(id);
    if (n % 10 >= share * 10) return;
    // The second copy right behind the first (both in flight at once) for even events, 20 deliveries later for odd.
    if (n % 2 === 0) queue.push(id);
    else later.push([queue.length + 20, id]);
  });
  for (const [at, id] of later.reverse()) queue.splice(Math.min(at, queue.length), 0, id);
  const tally = providerTally(ids);
  let next = 0;
  const deliverOne = async (id: string) => {
    for (let attempt = 1; attempt <= tries; attempt++) {
      if ((await tally.post(url, id, options.requestTimeoutMs ?? 20_000)) === 200) return;
      await new Promise((resolve) => setTimeout(resolve, retryDelayMs));
    }
  };
  const workers = Array.from({ length: options.concurrency ?? 10 }, async () => {
    while (next < queue.length) {
      const id = queue[next++] as string;
      await deliverOne(id);
    }
  });
  await Promise.all(workers);
  return tally.result();
}

/** One answer the provider got. */
export interface Answer {
  readonly id: string;
  readonly status: number;
  /** `performance.now()` when it came. */
  readonly at: number;
}

/** Options of {@link deliverWithRetries}. */
export interface RetriedCampaignOptions {
  readonly prefix: string;
  readonly events: number;
  /** Share of the events delivered twice (default 0.3). */
  readonly duplicateShare?: number;
  readonly concurrency?: number;
  /** How long the provider keeps retrying one delivery (its 4 tries over 21 minutes, compressed). */
  readonly retryForMs: number;
  /** Told of every try as it is sent. */
  readonly onSend?: (id: string) => void;
  /** Told of every answer (status 0: no answer). */
  readonly onAnswer?: (answer: Answer) => void;
}

/**
 * The campaign with the provider's retries compressed: each delivery is retried while it is not answered 200, after
 * 100 ms, doubling up to 2 s, for `retryForMs`; a try without an answer within 10 s counts as status 0.
 */
export async function deliverWithRetries(url: string, options: RetriedCampaignOptions): Promise<CampaignResult> {
  const ids = historyIds(options.prefix, options.events);
  const share = options.duplicateShare ?? 0.3;
  const queue: string[] = [];
  ids.forEach((id, n) => {
    queue.push(id);
    if (n % 10 < share * 10) queue.push(id);
  });
  const tally = providerTally(ids);
  let next = 0;
  const deliverOne = async (id: string) => {
    const giveUpAt = Date.now() + options.retryForMs;
    for (let attempt = 0; ; attempt++) {
      options.onSend?.(id);
      const status = await tally.post(url, id, 10_000);
      options.onAnswer?.({ id, status, at: performance.now() });
      if (status === 200) return;
      if (Date.now() >= giveUpAt) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 100 * 2 ** attempt)));
    }
  };
  await Promise.all(
    Array.from({ length: options.concurrency ?? 10 }, async () => {
      while (next < queue.length) await deliverOne(queue[next++] as string);
    }),
  );
  return tally.result();
}
