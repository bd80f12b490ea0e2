#!/usr/bin/env node
// What a kirimbayar client call costs over a raw `fetch` of the same request: the fake provider serves both over
// real HTTP on loopback, from its own process (fake-server.mjs) so only the calling side runs here. The client
// validates the input, builds the request, parses the envelope and validates the response with zod; the raw side
// sends the identical request and only runs `response.json()`. Calls are sequential (latency is where overhead
// shows), in alternating batches so drift hits both sides alike; medians of the batch means are compared, for wall
// time and for this process's CPU time. Goal (decided after the first wave): client / raw fetch with the same
// timeout, wall time, at most 1.2x; client / raw fetch without a timeout is shown for context.
// Writes bench/results/client-overhead.md.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ShippingClient } from "@kirimbayar/core";
import { formatInterval, goalComment, median, medianInterval, VERDICT_WORDS, verdict } from "../lib/stats.mjs";

const GOAL = 1.2;
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

// Context, not the goal: the same raw request with the per-call 30 s timeout a careful hand-written call sets
// (an AbortController passed to fetch, cleared afterwards), which the client must set too. On Node 20 a signal
// passed to fetch has a cost of its own (undici links it to the request through a WeakRef and a
// FinalizationRegistry), so this row shows how much of the gap that requirement alone explains.
const withTimeout = (call) => async () => {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 30_000);
  try {
    return await call(controller.signal);
  } finally {
    clearTimeout(timer);
  }
};

const ORIGIN = 1520101; // Gambir, Jakarta
const DESTINATION = 230201; // Braga, Bandung

/** Each operation as a client call and as the same request done by hand. */
const operations = [
  {
    name: "destination search (GET, query)",
    client: () => client.searchDomesticDestinations({ search: "bandung", limit: 10 }),
    raw: async (signal) => {
      const response = await fetch(`${serverUrl}/api/v1/destination/domestic-destination?search=bandung&limit=10`, {
        headers: { key: apiKey, accept: "application/json" },
        signal,
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
    raw: async (signal) => {
      const response = await fetch(`${serverUrl}/api/v1/calculate/domestic-cost`, {
        method: "POST",
        signal,
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

const rows = [];
try {
  for (const operation of operations) {
    // Both sides must get the same answer before their speed means anything.
    const [viaClient, viaRaw] = [await operation.client(), await operation.raw()];
    if (JSON.stringify(viaClient.data) !== JSON.stringify(viaRaw.data)) {
      throw new Error(`${operation.name}: the client and the raw request disagree`);
    }
    // `raw` gets no signal (fetch's default); `timed` is the same request with a timeout (see withTimeout).
    const sides = { client: operation.client, raw: () => operation.raw(), timed: withTimeout(operation.raw) };
    const names = Object.keys(sides);
    for (const name of names) await timeCalls(sides[name], WARMUP_CALLS);
    const times = { client: [], raw: [], timed: [] };
    for (let batch = 0; batch < BATCHES; batch++) {
      // Rotate which side goes first, so none always runs on a warmer connection pool.
      for (let i = 0; i < names.length; i++) {
        const name = names[(batch + i) % names.length];
        times[name].push(await timeCalls(sides[name], CALLS_PER_BATCH));
      }
    }
    // Each round's client batch is paired with that round's raw batches, so drift between rounds cancels out.
    // The goal compares with the raw request carrying the same timeout every client call must have.
    const ratios = times.client.map((t, i) => t.wall / times.timed[i].wall);
    const untimedRatios = times.client.map((t, i) => t.wall / times.raw[i].wall);
    const row = {
      name: operation.name,
      clientUs: median(times.client.map((t) => t.wall)),
      rawUs: median(times.raw.map((t) => t.wall)),
      timedUs: median(times.timed.map((t) => t.wall)),
      clientCpuUs: median(times.client.map((t) => t.cpu)),
      rawCpuUs: median(times.raw.map((t) => t.cpu)),
      ratio: median(ratios),
      interval: medianInterval(ratios),
      untimedRatio: median(untimedRatios),
    };
    row.result = verdict(row.interval, GOAL, "at-most");
    rows.push(row);
    console.log(
      `${operation.name}: client ${row.clientUs.toFixed(0)} µs (CPU ${row.clientCpuUs.toFixed(0)}), ` +
        `raw fetch ${row.rawUs.toFixed(0)} µs (CPU ${row.rawCpuUs.toFixed(0)}), raw + timeout ${row.timedUs.toFixed(0)} µs, ` +
        `${row.ratio.toFixed(3)}x the raw fetch with the same timeout`,
    );
  }
} finally {
  fake.kill("SIGTERM");
}

// The goal holds for every operation: it fails if one fails, and is settled only if every operation is.
const worstRow = rows.reduce((a, b) => (b.ratio > a.ratio ? b : a));
const results = rows.map((r) => r.result);
const result = results.includes("fail") ? "fail" : results.includes("unsettled") ? "unsettled" : "pass";
const fragment = `## Client call vs raw fetch

\`ShippingClient\` (\`@kirimbayar/core\`) against the fake provider (own process) over HTTP on loopback, versus a
hand-written \`fetch\` of the identical request followed by \`response.json()\`. Sequential calls, ${BATCHES} rounds of one
batch of ${CALLS_PER_BATCH} calls per side (the side that goes first rotates) after ${WARMUP_CALLS} warm-up calls. Per-call
figures are medians of the batch means; the goal figure "client / raw + timeout" is the median of each round's
client ÷ raw-with-timeout batch time, with a confidence interval for it from the rounds (bench/lib/stats.mjs). No
lookup cache.

The raw side sends the same method, path, query, \`key\` and \`accept\` headers and form body (only the
\`user-agent\` value differs) and parses the JSON body; it does not validate input, set a timeout (\`AbortSignal\`),
refuse redirects, unwrap the envelope, validate the response with zod, read rate-limit headers or redact secrets,
which the client does on every call. "CPU here" is the CPU time of the calling process per call (the fake provider
runs in another process), the steadier figure on a shared machine.

The goal's baseline, "raw + timeout", is the raw request with the 30 s timeout every client call must have (an
\`AbortController\` passed to \`fetch\`, its timer cleared afterwards): on Node 20 passing a signal to \`fetch\` costs
something by itself (undici ties it to the request with a \`WeakRef\` and a \`FinalizationRegistry\`), so
"client / raw + timeout" is the part of the gap the client's own work adds. "Client / raw" (no timeout) is context.

| Operation | Client, per call | Raw + timeout, per call | Client / raw + timeout | Interval | Raw fetch, per call | Client / raw | CPU here, client | CPU here, raw |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.map((r) => `| ${r.name} | ${r.clientUs.toFixed(0)} µs | ${r.timedUs.toFixed(0)} µs | ${r.ratio.toFixed(3)}x | ${formatInterval(r.interval, 3)} | ${r.rawUs.toFixed(0)} µs | ${r.untimedRatio.toFixed(3)}x | ${r.clientCpuUs.toFixed(0)} µs | ${r.rawCpuUs.toFixed(0)} µs |`).join("\n")}

Worst operation: ${worstRow.name}, **${worstRow.ratio.toFixed(3)}x** (goal at most ${GOAL.toFixed(2)}x for every operation): **${VERDICT_WORDS[result]}**.

${goalComment({ what: "client call vs raw fetch with the same timeout (worst operation)", measured: `${worstRow.ratio.toFixed(3)}x`, target: `<= ${GOAL.toFixed(2)}x`, result, interval: formatInterval(worstRow.interval, 3) })}
`;
mkdirSync(join(benchDir, "results"), { recursive: true });
writeFileSync(join(benchDir, "results/client-overhead.md"), fragment);
console.log(fragment);
