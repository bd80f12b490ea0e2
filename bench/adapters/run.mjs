// Adapter benchmark: for Express, Hono, NestJS and Fastify, req/s and server CPU per request of the kirimbayar webhook
// route against the same framework's bare JSON route, a hand-rolled route doing the same checks (the goals'
// baseline) and a minimal hand-rolled route (context), side by side in one run.
// Servers run in child processes on 127.0.0.1; autocannon drives them from this process.
// Usage: node bench/adapters/run.mjs [--rounds 8] [--seconds 1.5] [--warmup 4] [--connections 50] [--frameworks a,b]
//   [--out file]
// KIRIMBAYAR_BENCH_QUICK=1 (set by `pnpm bench -- --quick`) makes the defaults a short smoke run: 1 round of 2 s after
// 1 s of warm-up per route; its verdicts are unsettled (one round gives no interval), and flags still win.
import { fork } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { mergeAdapterRuns, parseAdapterFragment, renderAdapterRuns } from "../lib/adapter-runs.mjs";
import { qrisSuccessBody } from "../lib/payloads.mjs";
import { formatInterval, median, medianInterval, VERDICT_WORDS, verdict } from "../lib/stats.mjs";
import { TOKEN } from "./handrolled.mjs";

const quick = process.env.KIRIMBAYAR_BENCH_QUICK === "1";
const { values: args } = parseArgs({
  options: {
    // Many short rounds rather than a few long ones: the goal's interval narrows with the number of paired rounds.
    rounds: { type: "string", default: quick ? "1" : "8" },
    seconds: { type: "string", default: quick ? "2" : "1.5" },
    // Unrecorded load on every route before round 1 (see the note written with the results).
    warmup: { type: "string", default: quick ? "1" : "4" },
    connections: { type: "string", default: "50" },
    // A subset, e.g. `--frameworks fastify`: the other frameworks' last figures stay in --out, dated (the suite
    // always runs all four).
    frameworks: { type: "string", default: "express,hono,nestjs,fastify" },
    out: { type: "string", default: fileURLToPath(new URL("../results/adapters.md", import.meta.url)) },
  },
});
const rounds = Math.min(Number(args.rounds), 30);
const seconds = Math.min(Number(args.seconds), 30);
const warmupSeconds = Math.min(Number(args.warmup), 30);
const connections = Math.min(Number(args.connections), 200);
// Decided after the first wave: Hono at 0.90× is accepted (0.95× stays a stretch; duplicate-key refusal stays on).
// Fastify's goal is 0.90× from the start, 0.95× its stretch.
const GOALS = { express: 0.95, hono: 0.9, nestjs: 0.95, fastify: 0.9 };
const STRETCH = 0.95;

const routes = [
  { name: "bare", path: "/bare", unique: true },
  { name: "handrolled", path: `/handrolled?token=${TOKEN}`, unique: true },
  { name: "same-checks", path: `/same-checks?token=${TOKEN}`, unique: true },
  { name: "webhook", path: `/webhooks/qris?token=${TOKEN}`, unique: true },
  { name: "webhook-duplicate", path: `/webhooks/qris?token=${TOKEN}`, unique: false },
];
const knownFrameworks = ["express", "hono", "nestjs", "fastify"];
const frameworks = args.frameworks.split(",").filter((name) => knownFrameworks.includes(name));
if (frameworks.length === 0) throw new Error(`--frameworks: pick from ${knownFrameworks.join(", ")}`);

function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function startServer(framework) {
  const port = await freePort();
  const child = fork(fileURLToPath(new URL("./servers.mjs", import.meta.url)), [framework, String(port)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${framework} server did not start`)), 20_000);
    child.once("message", () => {
      clearTimeout(timer);
      resolve();
    });
    child.once("exit", (code) => reject(new Error(`${framework} server exited with ${code}`)));
  });
  const cpu = () =>
    new Promise((resolve) => {
      child.once("message", (usage) => resolve(usage.user + usage.system));
      child.send("cpu");
    });
  return { framework, port, child, cpu };
}

async function measure(server, route, duration = seconds) {
  const before = await server.cpu();
  const result = await autocannon({
    url: `http://127.0.0.1:${server.port}${route.path}`,
    method: "POST",
    headers: { "content-type": "application/json" },
    // `[<id>]` is replaced by autocannon with a fresh id per request: every webhook is a new event.
    body: qrisSuccessBody(route.unique ? "[<id>]" : "always-the-same-event"),
    idReplacement: route.unique,
    connections,
    duration,
  });
  const after = await server.cpu();
  const ok = result["2xx"];
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${server.framework} ${route.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  }
  return { rps: ok / duration, cpuMicrosPerRequest: (after - before) / ok };
}

const servers = [];
try {
  for (const framework of frameworks) servers.push(await startServer(framework));
  // A fresh server first measures its JIT and its heap growing to the working set (the webhook route's store
  // filling up, the hand-rolled route's cache too), not its steady state: every route gets the same load first.
  if (warmupSeconds > 0) {
    for (const server of servers) for (const route of routes) await measure(server, route, warmupSeconds);
  }
  const samples = new Map();
  for (let round = 1; round <= rounds; round++) {
    for (const server of servers) {
      // Odd rounds run the routes in reverse, so neither the webhook nor the hand-rolled route always goes first.
      for (const route of round % 2 === 1 ? routes : [...routes].reverse()) {
        const sample = await measure(server, route);
        const key = `${server.framework}/${route.name}`;
        samples.set(key, [...(samples.get(key) ?? []), sample]);
        console.log(
          `round ${round} ${server.framework.padEnd(7)} ${route.name.padEnd(17)} ${sample.rps.toFixed(0).padStart(6)} req/s ` +
            `${sample.cpuMicrosPerRequest.toFixed(1).padStart(6)} µs CPU/req`,
        );
      }
    }
  }
  const stat = (framework, route, key) => median(samples.get(`${framework}/${route}`).map((s) => s[key]));
  const date = new Date().toISOString().slice(0, 10);
  const settings =
    `Node ${process.version}, ${cpus().length} cores, autocannon on 127.0.0.1, ${connections} connections, ` +
    `${rounds} interleaved rounds × ${seconds} s per route after ${warmupSeconds} s of unrecorded warm-up on every ` +
    "route, servers in child processes";
  const text = {
    title: "## Adapters: webhook route vs the same framework's bare JSON route and a hand-rolled equivalent",
    method:
      "Written by `node bench/adapters/run.mjs`. Medians over rounds. Every webhook request carries a new event id " +
      "(the duplicate row repeats one id). CPU is the server process's user+system time per 2xx response. " +
      "`same-checks` is the hand-rolled route doing every check the webhook route does (strict UTF-8, prototype and " +
      "duplicate keys refused, the receiver's zod schema, a claim telling finished from running duplicates, the " +
      "no-op handler awaited); `handrolled` is the minimal one (lenient UTF-8, `JSON.parse`, a three-field schema, a " +
      "seen-set), context. The goal figure is the median over rounds of webhook req/s ÷ same-checks req/s of the " +
      "same round, with a confidence interval for it from the rounds (bench/lib/stats.mjs); the route order flips " +
      "every round.",
    header: [
      "Route",
      "req/s",
      "CPU µs/req",
      "req/s vs same-checks",
      "CPU vs same-checks",
      "req/s vs minimal hand-rolled",
      "req/s vs bare",
    ],
  };
  const runs = new Map();
  for (const framework of frameworks) {
    const sameRps = stat(framework, "same-checks", "rps");
    const sameCpu = stat(framework, "same-checks", "cpuMicrosPerRequest");
    const handRps = stat(framework, "handrolled", "rps");
    const bareRps = stat(framework, "bare", "rps");
    const rows = routes.map((route) => {
      const rps = stat(framework, route.name, "rps");
      const cpu = stat(framework, route.name, "cpuMicrosPerRequest");
      return [
        route.name,
        rps.toFixed(0),
        cpu.toFixed(1),
        `${(rps / sameRps).toFixed(2)}×`,
        `${(cpu / sameCpu).toFixed(2)}×`,
        `${(rps / handRps).toFixed(2)}×`,
        `${(rps / bareRps).toFixed(2)}×`,
      ];
    });
    // Each round's webhook run is paired with that round's same-checks run, so drift between rounds cancels out.
    const webhook = samples.get(`${framework}/webhook`);
    const same = samples.get(`${framework}/same-checks`);
    const ratios = webhook.map((sample, i) => sample.rps / same[i].rps);
    const hand = samples.get(`${framework}/handrolled`);
    const minimalRatios = webhook.map((sample, i) => sample.rps / hand[i].rps);
    const ratio = median(ratios);
    const interval = medianInterval(ratios);
    const GOAL = GOALS[framework] ?? STRETCH;
    const result = verdict(interval, GOAL, "at-least");
    const verdictLine =
      `webhook/same-checks = ${ratio.toFixed(2)}×, interval ${formatInterval(interval, 2, "×")} ` +
      `(goal ≥ ${GOAL}×: ${VERDICT_WORDS[result]}` +
      (GOAL < STRETCH ? `; stretch ≥ ${STRETCH}×: ${VERDICT_WORDS[verdict(interval, STRETCH, "at-least")]}` : "") +
      `); per round: ${ratios.map((r) => r.toFixed(2)).join(", ")}. Context, webhook/minimal hand-rolled = ` +
      `${median(minimalRatios).toFixed(2)}×, interval ${formatInterval(medianInterval(minimalRatios), 2, "×")}`;
    // Read by bench/run-all.mjs into the summary table of RESULTS.md.
    const goal = {
      what: `${framework} webhook route vs hand-rolled route doing the same checks (req/s)`,
      measured: `${ratio.toFixed(2)}x`,
      target: `>= ${GOAL}x`,
      result,
      interval: formatInterval(interval),
    };
    runs.set(framework, { framework, date, settings, rows, verdict: verdictLine, goal });
  }
  // A run of some frameworks keeps the others' last figures (each row dated): see bench/lib/adapter-runs.mjs.
  const previous = existsSync(args.out) ? parseAdapterFragment(readFileSync(args.out, "utf8")).runs : new Map();
  const fragment = renderAdapterRuns(mergeAdapterRuns(previous, runs), text);
  await writeFile(args.out, fragment);
  console.log(fragment);
} finally {
  for (const server of servers) server.child.kill("SIGTERM");
}
