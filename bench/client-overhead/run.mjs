#!/usr/bin/env node
// What a kirimbayar client call costs over a raw `fetch` of the same request: the fake provider serves both over
// real HTTP on loopback, from its own process (fake-server.mjs) so only the calling side runs here. The client
// validates the input, builds the request, parses the envelope and validates the response with zod; the raw side
// sends the identical request and only runs `response.json()`. Calls are sequential (latency is where overhead
// shows), in alternating batches so drift hits both sides alike; medians of the batch means are compared, for wall
// time and for this process's CPU time. Goal: client / raw wall time at most 1.10x.
// Writes bench/results/client-overhead.md.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ShippingClient } from "@kirimbayar/core";

const GOAL = 1.1;
const quick = process.env.KIRIMBAYAR_BENCH_QUICK === "1";
const BATCHES = quick ? 4 : 30;
const CALLS_PER_BATCH = quick ? 50 : 200;
const WARMUP_CALLS = quick ? 100 : 400;
const here = dirname(fileURLToPath(import.meta.url));
const benchDir = dirname(here);

const fake = spawn(process.execPath, [join(here, "fake-server.mjs")], { stdio: ["ignore", "pipe", "inherit"] });
const [serverUrl, apiKey] = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error("the fake provider did not start within 10 s")), 10_000);
  let output = "";
  fake.stdout.on("data", (chunk) => {
    output += chunk;
    const match = /ready (\S+) (\S+)/.exec(output);
    if (match) {
      clearTimeout(timer);
      resolve([match[1], match[2]]);
    }
  });
  fake.once("exit", (code) => reject(new Error(`the fake provider exited with ${code}`)));
});
// No lookup cache: every client call goes over the wire, like the raw one.
const client = new ShippingClient({ apiKey, baseUrl: serverUrl, cache: false });

const ORIGIN = 1520101; // Gambir, Jakarta
const DESTINATION = 230201; // Braga, Bandung

/** Each operation as a client call and as the same request done by hand. */
const operations = [
  {
    name: "destination search (GET, query)",
    client: () => client.searchDomesticDestinations({ search: "bandung", limit: 10 }),
    raw: async () => {
      const response = await fetch(`${serverUrl}/api/v1/destination/domestic-destination?search=bandung&limit=10`, {
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
      const response = await fetch(`${serverUrl}/api/v1/calculate/domestic-cost`, {
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

/** Mean wall time and CPU time (this process) of one call over `count` sequential calls, in microseconds. */
async function timeCalls(call, count) {
  const started = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < count; i++) await call();
  const cpu = process.cpuUsage(cpuBefore);
  return { wall: Number(process.hrtime.bigint() - started) / 1_000 / count, cpu: (cpu.user + cpu.system) / count };
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
    const row = {
      name: operation.name,
      clientUs: median(clientTimes.map((t) => t.wall)),
      rawUs: median(rawTimes.map((t) => t.wall)),
      clientCpuUs: median(clientTimes.map((t) => t.cpu)),
      rawCpuUs: median(rawTimes.map((t) => t.cpu)),
    };
    row.ratio = row.clientUs / row.rawUs;
    rows.push(row);
    console.log(
      `${operation.name}: client ${row.clientUs.toFixed(0)} µs (CPU ${row.clientCpuUs.toFixed(0)}), ` +
        `raw fetch ${row.rawUs.toFixed(0)} µs (CPU ${row.rawCpuUs.toFixed(0)}), ${row.ratio.toFixed(3)}x`,
    );
  }
} finally {
  fake.kill("SIGTERM");
}

const worst = Math.max(...rows.map((r) => r.ratio));
const pass = worst <= GOAL;
const fragment = `## Client call vs raw fetch

\`ShippingClient\` (\`@kirimbayar/core\`) against the fake provider (own process) over HTTP on loopback, versus a
hand-written \`fetch\` of the identical request followed by \`response.json()\`. Sequential calls, ${BATCHES} alternating batches of
${CALLS_PER_BATCH} calls per side after ${WARMUP_CALLS} warm-up calls, median of the batch means. No lookup cache.

The raw side sends the same method, path, query, \`key\` and \`accept\` headers and form body (only the
\`user-agent\` value differs) and parses the JSON body; it does not validate input, set a timeout (\`AbortSignal\`),
refuse redirects, unwrap the envelope, validate the response with zod, read rate-limit headers or redact secrets,
which the client does on every call. "CPU here" is the CPU time of the calling process per call (the fake provider
runs in another process), the steadier figure on a shared machine.

| Operation | Client, per call | Raw fetch, per call | Client / raw | CPU here, client | CPU here, raw |
| --- | ---: | ---: | ---: | ---: | ---: |
${rows.map((r) => `| ${r.name} | ${r.clientUs.toFixed(0)} µs | ${r.rawUs.toFixed(0)} µs | ${r.ratio.toFixed(3)}x | ${r.clientCpuUs.toFixed(0)} µs | ${r.rawCpuUs.toFixed(0)} µs |`).join("\n")}

Worst ratio **${worst.toFixed(3)}x** (goal at most ${GOAL.toFixed(2)}x): **${pass ? "met" : "NOT met"}**.

<!-- goal: client call vs raw fetch (worst operation) | ${worst.toFixed(3)}x | <= ${GOAL.toFixed(2)}x | ${pass ? "pass" : "fail"} -->
`;
mkdirSync(join(benchDir, "results"), { recursive: true });
writeFileSync(join(benchDir, "results/client-overhead.md"), fragment);
console.log(fragment);
