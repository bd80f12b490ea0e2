// KirimbayarShutdownModule over real HTTP (issue 37): on app.close() (what enableShutdownHooks does on SIGTERM) the
// app stops taking connections, the delivery in flight finishes within the grace period, one that outlasts it has
// its claim released, and only then does Nest close the rest.
import "reflect-metadata";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createGracefulShutdown, type GracefulShutdown } from "@kirimbayar/core/shutdown";
import { MemoryIdempotencyStore, WebhookConfigurationError } from "@kirimbayar/core/webhooks";
import { createPgBossInbox } from "@kirimbayar/inbox/pg-boss";
import { startPostgresServer } from "@kirimbayar/test-postgres-server";
import PgBoss from "pg-boss";
import { describe, expect, it } from "vitest";
import { KirimbayarInboxWorker, KirimbayarShutdown, KirimbayarShutdownModule } from "../src/index.js";
import { postQrisPaid } from "./support/qris.js";
import { compileShutdownModule, quiet, type ShutdownModuleOptions, sleep } from "./support/shutdown-app.js";

const TOKEN = "nest-shutdown-token";
const order: string[] = [];
/** The slow delivery outlasts the grace periods below; the others finish within them. */
const handlerMs = (id: string) => (id === "slow" ? 2_000 : 200);

async function boot(
  shutdown: GracefulShutdown,
  store: MemoryIdempotencyStore,
  more: Pick<ShutdownModuleOptions, "inbox" | "probeAndResources"> = {},
) {
  const moduleRef = await compileShutdownModule({ shutdown, store, token: TOKEN, order, handlerMs, ...more });
  const app = moduleRef.createNestApplication({ rawBody: true, logger: false });
  await app.listen(0, "127.0.0.1");
  const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}` };
}

const deliver = (url: string, id: string) => postQrisPaid(url, TOKEN, id).then((response) => response.status);

describe("KirimbayarShutdownModule", () => {
  it("drains on app.close(): the quick delivery finishes, the slow one's claim is released, then Nest closes", async () => {
    order.length = 0;
    const shutdown = createGracefulShutdown({ graceMs: 500, logger: quiet });
    const store = new MemoryIdempotencyStore();
    const { app, url } = await boot(shutdown, store);
    expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ ready: true });
    const quick = deliver(url, "quick");
    const slow = deliver(url, "slow").catch((error: unknown) => `cut: ${(error as Error).message}`);
    for (let waited = 0; shutdown.held < 2 && waited < 5_000; waited += 10) await sleep(10);

    await app.close();
    expect(await quick).toBe(200);
    expect(String(await slow)).toMatch(/^cut/);
    expect(order).toEqual(["applied quick", "resources closed"]);
    const report = app.get(KirimbayarShutdown).report;
    expect(report).toMatchObject({ heldAtStop: 2, heldAtGraceEnd: 1, released: 1, failedSteps: [] });
    expect(shutdown.ready).toBe(false);
    // The slow event is free for the provider's retry on another instance, as a second attempt.
    expect(store.claim("qris:payment.success:slow", "other", 1_000)).toEqual({ state: "claimed", attempt: 2 });
    expect(store.claim("qris:payment.success:quick", "other", 1_000)).toEqual({ state: "completed" });
  });

  it("stops the module's inbox worker in step with the drain, handing back at once an event still running", async () => {
    const postgres = await startPostgresServer();
    const boss = new PgBoss({ connectionString: postgres.url, max: 4 });
    boss.on("error", () => {});
    await boss.start();
    const queue = await createPgBossInbox({ boss, name: "nest-shutdown", pollingIntervalMs: 100 });
    try {
      order.length = 0;
      const shutdown = createGracefulShutdown({ graceMs: 300, logger: quiet });
      const store = new MemoryIdempotencyStore();
      const { app, url } = await boot(shutdown, store, { inbox: { queue }, probeAndResources: false });
      expect(await deliver(url, "slow")).toBe(200);
      for (let waited = 0; shutdown.held < 1 && waited < 10_000; waited += 20) await sleep(20);
      expect(shutdown.held).toBe(1);

      const startedAt = performance.now();
      await app.close();
      // Not the worker's own 30 s stop: the drain's 300 ms, then the event went back to the queue, due now.
      expect(performance.now() - startedAt).toBeLessThan(5_000);
      expect(app.get(KirimbayarShutdown).report).toMatchObject({ heldAtGraceEnd: 1, released: 1, failedSteps: [] });
      expect(app.get(KirimbayarInboxWorker).running).toBe(false);
      expect(store.inspect("qris:payment.success:slow")?.state).toBe("released");
      for (let waited = 0; waited < 5_000; waited += 50) {
        if ((await queue.stats()).waiting === 1) break;
        await sleep(50);
      }
      expect(await queue.stats()).toMatchObject({ waiting: 1, active: 0 });
    } finally {
      await queue.close();
      await boss.stop({ graceful: false, wait: true, timeout: 2_000 }).catch(() => {});
      await postgres.destroy();
    }
  }, 60_000);

  it("refuses anything but a graceful shutdown", () => {
    expect(() => KirimbayarShutdownModule.forRoot({} as GracefulShutdown)).toThrow(WebhookConfigurationError);
  });
});
