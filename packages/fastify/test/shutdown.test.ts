// fastifyShutdownSteps in a graceful shutdown (issue 37), over a load balancer's kind of connection: kept alive and
// reused. The delivery in flight finishes; one arriving on the kept-alive connection meanwhile is answered 503 with
// `Connection: close` (the balancer retries it elsewhere); the app closes as soon as the connection is idle.
import { connect } from "node:net";
import { createGracefulShutdown, type GracefulShutdown } from "@kirimbayar/core/shutdown";
import { createWebhookReceiver, MemoryIdempotencyStore, tokenVerifier } from "@kirimbayar/core/webhooks";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { createWebhookPlugin, fastifyShutdownSteps } from "../src/index.js";
import { listen } from "./helpers.js";

const TOKEN = "fastify-shutdown-token";
const quiet = { warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function rawDelivery(id: string): string {
  const body = JSON.stringify({
    event: "payment.success",
    timestamp: "2026-03-01T03:00:00Z",
    data: { qris_history_id: id, amount: 10_000 },
  });
  return (
    `POST /webhooks/qris?token=${TOKEN} HTTP/1.1\r\nHost: lb\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/**
 * A Fastify app whose QRIS receiver's store is tracked by `shutdown`, listening on loopback, and one kept-alive
 * connection to it as a load balancer holds one: what it received so far, and when the app closed it.
 */
async function trackedAppWithConnection(
  shutdown: GracefulShutdown,
  handler: (event: { data: Record<string, unknown> }) => Promise<unknown>,
) {
  const store = new MemoryIdempotencyStore();
  const qris = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
    idempotency: { store: shutdown.track(store) },
    logger: quiet,
  }).on("payment.success", handler);
  const app = Fastify();
  app.register(createWebhookPlugin({ qris }), { prefix: "/webhooks" });
  const { port } = await listen(app);
  const socket = connect(port, "127.0.0.1");
  const connection = { socket, received: "" };
  socket.on("data", (chunk) => {
    connection.received += chunk;
  });
  const closed = new Promise((resolve) => socket.on("close", resolve));
  return { app, store, connection, closed };
}

describe("fastifyShutdownSteps", () => {
  it("finishes the delivery in flight, refuses the next on the kept-alive connection, and closes the app", async () => {
    const shutdown = createGracefulShutdown({ graceMs: 3_000, logger: quiet });
    const applied: string[] = [];
    const { app, connection, closed } = await trackedAppWithConnection(shutdown, async (event) => {
      await sleep(300);
      applied.push(String(event.data.qris_history_id));
    });
    const { socket } = connection;
    socket.write(rawDelivery("in-flight"));
    await sleep(100);

    const startedAt = performance.now();
    const running = shutdown.run(fastifyShutdownSteps(app));
    await sleep(20);
    socket.write(rawDelivery("arriving"));
    const report = await running;
    await closed;

    const answers = connection.received.split(/(?=HTTP\/1\.1 )/);
    expect(answers.map((answer) => answer.slice(9, 12))).toEqual(["200", "503"]);
    expect(answers[1]).toMatch(/connection: close/i);
    expect(applied).toEqual(["in-flight"]);
    expect(report).toMatchObject({ heldAtStop: 1, heldAtGraceEnd: 0, released: 0, failedSteps: [] });
    // Closed once the connection went idle, not after the grace period nor Fastify's 72 s keep-alive timeout.
    expect(performance.now() - startedAt).toBeLessThan(1_500);
    expect(app.server.listening).toBe(false);
  });

  it("refuses what is not a Fastify instance", () => {
    expect(() => fastifyShutdownSteps({} as never)).toThrow(/pass the Fastify instance/);
  });

  it("abort cuts a connection still busy after the grace period, once the claim is released", async () => {
    const shutdown = createGracefulShutdown({ graceMs: 200, logger: quiet });
    const { app, store, connection, closed } = await trackedAppWithConnection(shutdown, () => sleep(5_000));
    const { socket } = connection;
    socket.on("error", () => {});
    socket.write(rawDelivery("stuck"));
    await sleep(100);
    const report = await shutdown.run(fastifyShutdownSteps(app));
    await closed;
    expect(connection.received).toBe("");
    expect(report).toMatchObject({ heldAtGraceEnd: 1, released: 1 });
    expect(store.claim("qris:payment.success:stuck", "other", 1_000)).toEqual({ state: "claimed", attempt: 2 });
  });
});
