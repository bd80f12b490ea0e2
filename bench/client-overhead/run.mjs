#!/usr/bin/env node
// What a kirimbayar client call costs over a raw `fetch` of the same request: the fake provider serves both over
// real HTTP on loopback; the client validates the input, builds the request, parses the envelope and validates the
// response with zod; the raw side sends the identical request and only runs `response.json()`. Calls are sequential
// (latency is where overhead shows), in alternating batches so drift hits both sides alike; medians of per-call
// time are compared. Goal: client / raw at most 1.10x. Writes bench/results/client-overhead.md.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ShippingClient } from "@kirimbayar/core";
import { createFakeProvider } from "@kirimbayar/testing";

const GOAL = 1.1;
const quick = process.env.KIRIMBAYAR_BENCH_QUICK === "1";
const BATCHES = quick ? 4 : 12;
const CALLS_PER_BATCH = quick ? 50 : 200;
const WARMUP_CALLS = quick ? 100 : 400;
const benchDir = dirname(dirname(fileURLToPath(import.meta.url)));

const provider = createFakeProvider({ rateLimit: false });
const server = await provider.listen({ host: "127.0.0.1", port: 0 });
const apiKey = provider.apiKeys.shipping[0];
// No lookup cache: every client call goes over the wire, like the raw one.
const client = new ShippingClient({ apiKey, baseUrl: server.url, cache: false });

const ORIGIN = 1520101; // Gambir, Jakarta
const DESTINATION = 230201; // Braga, Bandung

/** Each operation as a client call and as the same request done by hand. */
const operations = [
  {
    name: "destination search (GET, query)",
    client: () => client.searchDomesticDestinations({ search: "bandung", limit: 10 }),
    raw: async () => {
      const response = await fetch(`${server.url}/api/v1/destination/domestic-destination?search=bandung&limit=10`, {
        headers: { key: apiKey, accept: "application/json" },
      });
      return response.json();
    },
  },
  {
    name: "domestic cost, 3 couriers (POST, form)",
    client: () =>
      client.calculateDomesticCost({
        origin: ORIGIN,
        destination: DESTINATION,
        weight: 1200,
        courier: ["jne", "sicepat", "pos"],
      }),
    raw: async () => {
      const response = await fetch(`${server.url}/api/v1/calculate/domestic-cost`, {
        method: "POST",
        headers: { key: apiKey, accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          origin: String(ORIGIN),
          destination: String(DESTINATION),
          weight: "1200",
          courier: "jne:sicepat:pos",
        }),
      });
      return response.json();
    },
  },
];

/** Mean time of one call over `count` sequential calls, in microseconds. */
async function timeCalls(call, count) {
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) await call();
  return Number(process.hrtime.bigint() - started) / 1_000 / count;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const rows = [];
try {
  for (const operation of operations) {
    // Both sides must get the same answer before their speed means anything.
    const [viaClient, viaRaw] = [await operation.client(), await operation.raw()];
    if (JSON.stringify(viaClient.data) !== JSON.stringify(viaRaw.data)) {
      throw new Error(`${operation.name}: the client and the raw request disagree`);
    }
    await timeCalls(operation.client, WARMUP_CALLS);
    await timeCalls(operation.raw, WARMUP_CALLS);
    const clientTimes = [];
    const rawTimes = [];
    for (let batch = 0; batch < BATCHES; batch++) {
      // Alternate which side goes first, so neither always runs on a warmer connection pool.
      if (batch % 2 === 0) {
        clientTimes.push(await timeCalls(operation.client, CALLS_PER_BATCH));
        rawTimes.push(await timeCalls(operation.raw, CALLS_PER_BATCH));
      } else {
        rawTimes.push(await timeCalls(operation.raw, CALLS_PER_BATCH));
        clientTimes.push(await timeCalls(operation.client, CALLS_PER_BATCH));
      }
    }
    const clientUs = median(clientTimes);
    const rawUs = median(rawTimes);
    rows.push({ name: operation.name, clientUs, rawUs, ratio: clientUs / rawUs });
    console.log(
      `${operation.name}: client ${clientUs.toFixed(0)} µs, raw fetch ${rawUs.toFixed(0)} µs, ${(clientUs / rawUs).toFixed(3)}x`,
    );
  }
} finally {
  await server.close();
}

const worst = Math.max(...rows.map((r) => r.ratio));
const pass = worst <= GOAL;
const fragment = `## Client call vs raw fetch

\`ShippingClient\` (\`@kirimbayar/core\`) against the fake provider over HTTP on loopback, versus a hand-written \`fetch\`
of the identical request followed by \`response.json()\`. Sequential calls, ${BATCHES} alternating batches of
${CALLS_PER_BATCH} calls per side after ${WARMUP_CALLS} warm-up calls, median of the batch means. No lookup cache.

| Operation | Client, per call | Raw fetch, per call | Client / raw |
| --- | ---: | ---: | ---: |
${rows.map((r) => `| ${r.name} | ${r.clientUs.toFixed(0)} µs | ${r.rawUs.toFixed(0)} µs | ${r.ratio.toFixed(3)}x |`).join("\n")}

Worst ratio **${worst.toFixed(3)}x** (goal at most ${GOAL.toFixed(2)}x): **${pass ? "met" : "NOT met"}**.

<!-- goal: client call vs raw fetch (worst operation) | ${worst.toFixed(3)}x | <= ${GOAL.toFixed(2)}x | ${pass ? "pass" : "fail"} -->
`;
mkdirSync(join(benchDir, "results"), { recursive: true });
writeFileSync(join(benchDir, "results/client-overhead.md"), fragment);
console.log(fragment);
