import type { InboxQueue, InboxWorker, InboxWorkerOptions } from "@kirimbayar/inbox";

/** The shop's durable inbox (SHOP_INBOX=pg-boss): the queue, and how to start its worker and close it. */
export interface ShopInbox {
  readonly queue: InboxQueue;
  /** Starts the worker that applies the queued events through `receivers` (the shop's, with their store). */
  startWorker(receivers: InboxWorkerOptions["receivers"]): Promise<InboxWorker>;
  /** Closes the queue and pg-boss (stop the worker first: the graceful shutdown does). */
  close(): Promise<void>;
}

/**
 * Opens the durable inbox on pg-boss in the shop's PostgreSQL (`DATABASE_URL`). Loaded only when SHOP_INBOX is set,
 * so that a shop without it loads nothing of pg-boss.
 *
 * @example
 * const inbox = await openShopInbox(process.env.DATABASE_URL!);
 * const receivers = createShopReceivers(secrets, handlers, store, undefined, journal, undefined, inbox.queue);
 * const worker = await inbox.startWorker(receivers);
 */
export async function openShopInbox(databaseUrl: string): Promise<ShopInbox> {
  const [{ default: PgBoss }, { createPgBossInbox }, { startInboxWorker }] = await Promise.all([
    import("pg-boss"),
    import("@kirimbayar/inbox/pg-boss"),
    import("@kirimbayar/inbox"),
  ]);
  const boss = new PgBoss({ connectionString: databaseUrl, max: 4 });
  // Connection trouble surfaces as failed enqueues (503) and the worker's warnings; pg-boss reconnects by itself.
  boss.on("error", () => {});
  await boss.start();
  const queue = await createPgBossInbox({ boss });
  return {
    queue,
    startWorker: (receivers) => startInboxWorker({ inbox: queue, receivers }),
    async close() {
      await queue.close();
      await boss.stop({ graceful: false, wait: true, timeout: 5_000 });
    },
  };
}
