// In-process half of bench/allocations: bytes allocated per `receiver.handle` delivery and per call of the
// hand-rolled same-checks function, on new-event bodies. Run by run.mjs under its MEASURING_FLAGS; prints the
// samples (bytes per delivery, one per round) as JSON on its last line.
import { performance } from "node:perf_hooks";
import v8 from "node:v8";
import { createWebhookReceiver, MemoryIdempotencyStore, tokenVerifier } from "@kirimbayar/core/webhooks";
import { createHandRolledSameChecks, HAND_ROLLED_CACHE_ENTRIES, TOKEN } from "../adapters/handrolled.mjs";
import { qrisSuccessBody } from "../lib/payloads.mjs";
import { collect, collectionsSoFar } from "./collections.mjs";

if (typeof globalThis.gc !== "function") throw new Error("run through bench/allocations/run.mjs (needs --expose-gc)");
const rounds = Number(process.argv[2] ?? 9);
const PER_ROUND = 5_000;

// The same receiver and function as the bench/adapters servers (servers.mjs), without the HTTP layer.
const receiver = createWebhookReceiver({
  source: "qris",
  verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
  idempotency: { store: new MemoryIdempotencyStore({ maxEntries: HAND_ROLLED_CACHE_ENTRIES }) },
});
const processed = async () => {};
receiver.on("payment.success", processed);
const sameChecks = createHandRolledSameChecks(processed);
const headers = { "content-type": "application/json", host: "127.0.0.1", "content-length": "300" };
const url = `/webhooks/qris?token=${TOKEN}`;

let nextId = 0;
const newBodies = (count) => Array.from({ length: count }, () => Buffer.from(qrisSuccessBody(`event-${++nextId}`)));
const routes = {
  async webhook(body) {
    const response = await receiver.handle({ method: "POST", url, headers, rawBody: body, remoteAddress: "127.0.0.1" });
    if (response.status !== 200) throw new Error(`webhook answered ${response.status}: ${response.body}`);
  },
  async "same-checks"(body) {
    const [status] = await sameChecks(TOKEN, body);
    if (status !== 200) throw new Error(`same-checks answered ${status}`);
  },
};

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Bytes allocated per delivery over one batch of new events, or undefined when a collection ran meanwhile. */
async function measure(route) {
  const bodies = newBodies(PER_ROUND);
  await collect();
  const seen = collectionsSoFar();
  const before = v8.getHeapStatistics().used_heap_size;
  // Each delivery in its own turn of the event loop, as a server gets them (a delivery's handler time limit is armed
  // only if it outlives its turn: core's timer-delay.ts). Both routes pay the same for the yield.
  for (const body of bodies) {
    await routes[route](body);
    await settle();
  }
  const after = v8.getHeapStatistics().used_heap_size;
  await settle(); // the observer reports a collection asynchronously
  return collectionsSoFar() === seen ? (after - before) / PER_ROUND : undefined;
}

// Warm-up: JIT, and each store holding events already.
for (const route of Object.keys(routes)) {
  for (const body of newBodies(20_000)) {
    await routes[route](body);
    await settle();
  }
}
const samples = { webhook: [], "same-checks": [] };
const started = performance.now();
for (let round = 0; round < rounds && performance.now() - started < 120_000; round++) {
  for (const route of round % 2 === 0 ? ["webhook", "same-checks"] : ["same-checks", "webhook"]) {
    for (let attempt = 0; attempt < 3; attempt++) {
      const bytes = await measure(route);
      if (bytes === undefined) continue;
      samples[route].push(bytes);
      break;
    }
  }
}
console.log(JSON.stringify(samples));
