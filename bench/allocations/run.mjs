#!/usr/bin/env node
// Bytes allocated per webhook delivery: the noise-free companion of bench/adapters' Fastify goal (issue 37). Req/s
// on this 2-core machine moves by ±5 % between runs of one build, so a change of 2–3 % cannot be told from a
// single run; the bytes a delivery allocates are counted exactly and drive the garbage collector's share of the
// cores (callgrind: most of the webhook route's extra instructions per request ran on V8's GC threads).
//
// Two comparisons, each against the hand-rolled route doing the same checks (bench/adapters/handrolled.mjs):
// - in-process: `receiver.handle` (memory store, token verifier, one async no-op handler) vs the hand-rolled
//   function, on the same new-event bodies;
// - over HTTP: the Fastify server bench/adapters serves (the webhook route vs its same-checks route), requests
//   driven by autocannon; the server counts what it allocated while answering them.
// How: the young generation is made large enough (`--max-semi-space-size`) that no collection runs while a round is
// measured, so the growth of the used heap is exactly what was allocated; a round during which a collection ran is
// thrown away and measured again. Medians over interleaved rounds. Writes bench/results/allocations.md.
import { fork, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { formatInterval, median, medianInterval } from "../lib/stats.mjs";
import { contextComment } from "../lib/summary.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const benchDir = dirname(here);
const quick = process.env.KIRIMBAYAR_BENCH_QUICK === "1";
const { values: args } = parseArgs({
  options: {
    rounds: { type: "string", default: quick ? "3" : "9" },
    out: { type: "string", default: join(benchDir, "results/allocations.md") },
  },
});
const rounds = Math.min(Math.max(Number(args.rounds), 1), 30);
/** Node flags of every measuring process: a young generation no round fills, and `gc()` between rounds. */
export const MEASURING_FLAGS = ["--expose-gc", "--max-semi-space-size=256", "--min-semi-space-size=256"];

function runChild(file, childArgs) {
  const child = spawnSync(process.execPath, [...MEASURING_FLAGS, join(here, file), ...childArgs], {
    encoding: "utf8",
    timeout: 240_000,
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (child.status !== 0) throw new Error(`${file} failed (${child.status ?? child.signal})`);
  return JSON.parse(child.stdout.trim().split("\n").at(-1));
}

function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Over HTTP: the Fastify bench server, measured by itself around each batch of requests. */
async function overHttp() {
  const { default: autocannon } = await import("autocannon");
  const { qrisSuccessBody } = await import("../lib/payloads.mjs");
  const { TOKEN } = await import("../adapters/handrolled.mjs");
  const port = await freePort();
  const child = fork(join(here, "server.mjs"), ["fastify", String(port)], {
    execArgv: MEASURING_FLAGS,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const next = (predicate) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the server did not answer in 60 s")), 60_000);
      const onMessage = (message) => {
        if (!predicate(message)) return;
        clearTimeout(timer);
        child.off("message", onMessage);
        resolve(message);
      };
      child.on("message", onMessage);
    });
  try {
    await next((message) => message === "ready");
    const routes = {
      webhook: `/webhooks/qris?token=${TOKEN}`,
      "same-checks": `/same-checks?token=${TOKEN}`,
    };
    const send = (path, amount) =>
      autocannon({
        url: `http://127.0.0.1:${port}${path}`,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: qrisSuccessBody("[<id>]"),
        idReplacement: true,
        connections: 10,
        amount,
      });
    const samples = { webhook: [], "same-checks": [] };
    for (const path of Object.values(routes)) await send(path, 20_000); // warm-up: JIT, and each store filling up
    const requests = quick ? 1_000 : 2_000;
    for (let round = 0; round < rounds; round++) {
      // The order flips every round, as in bench/adapters.
      for (const route of round % 2 === 0 ? ["webhook", "same-checks"] : ["same-checks", "webhook"]) {
        const target = routes[route];
        // Up to 3 tries for a round during which a collection ran after all.
        for (let attempt = 0; attempt < 3; attempt++) {
          child.send("mark");
          await next((message) => message === "marked");
          const result = await send(target, requests);
          child.send("measure");
          const { bytes, collections } = await next((message) => message?.bytes !== undefined);
          if (result["2xx"] !== requests) throw new Error(`${route}: ${result["2xx"]} of ${requests} answered 2xx`);
          if (collections > 0) continue;
          samples[route].push(bytes / requests);
          break;
        }
      }
    }
    return samples;
  } finally {
    child.kill();
  }
}

const inProcess = runChild("in-process.mjs", [String(rounds)]);
const http = await overHttp();
const row = (name, samples) => {
  const route = median(samples.webhook);
  const same = median(samples["same-checks"]);
  // Rounds are paired (the same round measures both routes, the order flipping): the interval is the ratio's.
  const ratios = samples.webhook.map((bytes, i) => bytes / samples["same-checks"][i]).filter(Number.isFinite);
  const interval = ratios.length >= 2 ? formatInterval(medianInterval(ratios), 2, "×") : "–";
  return { name, route, same, extra: route - same, ratio: route / same, interval, rounds: samples.webhook.length };
};
const rows = [row("`receiver.handle` in-process", inProcess), row("Fastify server, per HTTP request", http)];
const kb = (bytes) => `${(bytes / 1024).toFixed(2)} KB`;
const fragment = `## Bytes allocated per webhook delivery (webhook route vs hand-rolled same-checks route)

Written by \`node bench/allocations/run.mjs\` (Node ${process.version}). Every delivery is a new QR payment event
(memory store, token verifier, one async no-op handler). Each process runs with a young generation no round fills
(\`${MEASURING_FLAGS.join(" ")}\`), so the growth of the used heap during a round is exactly what it allocated; a
round during which a collection ran anyway is measured again. Medians over interleaved rounds; the same-checks
route is bench/adapters' baseline. Context for the Fastify req/s goal in \`adapters.md\`: bytes allocated are what
the collector's threads work through, on the same 2 cores as the load generator.

| Measured | Webhook route | Same-checks route | Extra per delivery | Ratio | Interval (per-round ratios) | Rounds |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.map((r) => `| ${r.name} | ${kb(r.route)} | ${kb(r.same)} | ${Math.round(r.extra)} B | ${r.ratio.toFixed(2)}× | ${r.interval} | ${r.rounds} |`).join("\n")}

${rows
  .map((r) =>
    contextComment({
      what: `bytes allocated per delivery, webhook route vs same-checks (${r.name.replaceAll("`", "")})`,
      measured: `${kb(r.route)} vs ${kb(r.same)} (${r.ratio.toFixed(2)}x)`,
      interval: r.interval,
      why: "noise-free companion of the Fastify req/s goal",
    }),
  )
  .join("\n")}
`;
mkdirSync(dirname(args.out), { recursive: true });
writeFileSync(args.out, fragment);
console.log(fragment);
