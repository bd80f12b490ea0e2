// KirimbayarShutdownModule on Nest's Fastify platform, over real HTTP and a load balancer's kind of connections (kept
// alive, reused): on app.close() and on a real SIGTERM (enableShutdownHooks) the delivery in flight finishes within the
// grace period, one arriving on its kept-alive connection meanwhile is answered 503 with `Connection: close` (the
// balancer retries it elsewhere), one that outlasts the grace period has its claim released and its connection cut,
// and only then does Nest close the rest (Fastify's own close included, on a server already closed).
import "reflect-metadata";
import type { Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { isMainThread } from "node:worker_threads";
import { createGracefulShutdown, type GracefulShutdown } from "@kirimbayar/core/shutdown";
import { MemoryIdempotencyStore } from "@kirimbayar/core/webhooks";
import type { NestApplicationOptions } from "@nestjs/common";
import { FastifyAdapter, type NestFastifyApplication } from "@nestjs/platform-fastify";
import { describe, expect, it } from "vitest";
import { KirimbayarShutdown } from "../src/index.js";
import { qrisPaidBody } from "./support/qris.js";
import { compileShutdownModule, quiet, sleep } from "./support/shutdown-app.js";

const TOKEN = "nest-fastify-shutdown-token";
const order: string[] = [];
/** The slow delivery outlasts the grace period below; the others finish within it. */
const handlerMs = (id: string) => (id.startsWith("slow") ? 5_000 : 300);

async function boot(
  shutdown: GracefulShutdown,
  store: MemoryIdempotencyStore,
  appOptions: NestApplicationOptions = {},
) {
  const moduleRef = await compileShutdownModule({ shutdown, store, token: TOKEN, order, handlerMs });
  const app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), {
    ...appOptions,
    logger: false,
  });
  await app.listen(0, "127.0.0.1");
  const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
  return { app, port };
}

function rawDelivery(id: string): string {
  const body = qrisPaidBody(id);
  return (
    `POST /webhooks/qris?token=${TOKEN} HTTP/1.1\r\nHost: lb\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** A kept-alive connection as a load balancer holds one: what it received, and when the app closed it. */
function balancerConnection(port: number) {
  const socket: Socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  const connection = { socket, received: "", closedAt: undefined as number | undefined };
  socket.on("data", (chunk) => {
    connection.received += chunk;
  });
  const closed = new Promise<void>((resolve) =>
    socket.on("close", () => {
      connection.closedAt = performance.now();
      resolve();
    }),
  );
  return {
    connection,
    closed,
    statuses: () => connection.received.split(/(?=HTTP\/1\.1 )/).map((a) => a.slice(9, 12)),
  };
}

/** How the shutdown is started, and how the test knows it ended. */
interface Trigger {
  readonly name: string;
  /** Nest's options of the app (besides `logger`). */
  readonly appOptions?: NestApplicationOptions;
  /** Who answers the delivery arriving during the drain: the tracked store (refused claim) or Nest's own hook. */
  readonly refusedByStore: boolean;
  start(app: NestFastifyApplication): Promise<void>;
}

const triggers: Trigger[] = [
  { name: "app.close()", refusedByStore: true, start: (app) => app.close() },
  {
    // A real SIGTERM to this process, through Nest's own listener (enableShutdownHooks): it runs the same sequence as
    // app.close(), then sends the signal again to end the process. A listener of the test's own keeps the test
    // process alive through both (vitest runs each file in a forked process: the signal reaches only that one).
    name: "SIGTERM (app.enableShutdownHooks())",
    refusedByStore: true,
    async start(app) {
      if (!isMainThread) throw new Error("this test sends SIGTERM to its process: run it in vitest's forks pool");
      let signals = 0;
      const survive = () => {
        signals++;
      };
      process.on("SIGTERM", survive);
      try {
        app.enableShutdownHooks(["SIGTERM"]);
        process.kill(process.pid, "SIGTERM");
        // Nest's listener sends SIGTERM once more when its shutdown has run: the second one the test's listener hears.
        for (let waited = 0; signals < 2 && waited < 15_000; waited += 10) await sleep(10);
        expect(signals).toBe(2);
      } finally {
        process.off("SIGTERM", survive);
      }
    },
  },
  {
    // Nest's Fastify adapter then answers every request 503 itself once the shutdown begins, before any route runs.
    name: "app.close() with Nest's return503OnClosing",
    appOptions: { return503OnClosing: true },
    refusedByStore: false,
    start: (app) => app.close(),
  },
];

describe.each(triggers)("KirimbayarShutdownModule on the Fastify platform, shut down by $name", (trigger) => {
  it("drains: the delivery in flight finishes, a later one is answered 503, the held claim is released", async () => {
    order.length = 0;
    const graceMs = 1_500;
    const shutdown = createGracefulShutdown({ graceMs, logger: quiet });
    const store = new MemoryIdempotencyStore();
    const { app, port } = await boot(shutdown, store, trigger.appOptions);
    const probe = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(await probe.json()).toEqual({ ready: true });

    const quick = balancerConnection(port);
    const slow = balancerConnection(port);
    quick.connection.socket.write(rawDelivery("quick"));
    slow.connection.socket.write(rawDelivery("slow"));
    for (let waited = 0; shutdown.held < 2 && waited < 5_000; waited += 10) await sleep(10);
    expect(shutdown.held).toBe(2);

    const startedAt = performance.now();
    const closing = trigger.start(app);
    for (let waited = 0; shutdown.ready && waited < 2_000; waited += 5) await sleep(5);
    expect(shutdown.ready).toBe(false);
    // Pipelined behind the one in flight on the kept-alive connection: answered once that one is, after the drain began.
    quick.connection.socket.write(rawDelivery("later"));
    await closing;
    const closedAfterMs = performance.now() - startedAt;
    await Promise.all([quick.closed, slow.closed]);

    // The delivery in flight finished within the grace period; the later one was refused (no claim: nothing ran),
    // with `Connection: close`, and the connection was closed right after, not at the end of the grace period.
    expect(quick.statuses()).toEqual(["200", "503"]);
    expect(quick.connection.received.split(/(?=HTTP\/1\.1 )/)[1]).toMatch(/connection: close/i);
    expect((quick.connection.closedAt as number) - startedAt).toBeLessThan(graceMs);
    // The slow one's connection was cut once the grace period ended and its claim was released: no answer.
    expect(slow.connection.received).toBe("");
    expect((slow.connection.closedAt as number) - startedAt).toBeGreaterThanOrEqual(graceMs - 50);
    expect(closedAfterMs).toBeLessThan(graceMs + 2_000);
    expect(order).toEqual(["applied quick", "resources closed"]);
    expect(app.get(KirimbayarShutdown).report).toMatchObject({
      heldAtStop: 2,
      heldAtGraceEnd: 1,
      released: 1,
      refused: trigger.refusedByStore ? 1 : 0,
      failedSteps: [],
    });
    expect((app.getHttpServer() as Server).listening).toBe(false);
    // The slow event is free for the provider's retry on another instance, as a second attempt; the later one was
    // never claimed here, and the quick one is done.
    expect(store.claim("qris:payment.success:slow", "other", 1_000)).toEqual({ state: "claimed", attempt: 2 });
    expect(store.claim("qris:payment.success:later", "other", 1_000)).toEqual({ state: "claimed", attempt: 1 });
    expect(store.claim("qris:payment.success:quick", "other", 1_000)).toEqual({ state: "completed" });
  });
});
