#!/usr/bin/env node
// Reconciliation of 10,000 pending QR payments against the in-process fake provider (limits off) versus the same
// status calls made directly with the client. Half the payments were paid while every webhook delivery failed, so
// the reconciler turns each of those into an event and runs it through the receiver's handler and idempotency store
// (a fresh receiver per round, so every round applies them); the direct side only asks. Same concurrency (4) on
// both sides; rounds alternate which side goes first. Each side starts from a collected heap, so neither pays for
// the other's garbage (without it a major collection lands on one side or the other at random: per-round ratios
// ranged 0.89-1.80 in one process, 1.17-1.46 with it).
// Goal (issue 16, as decided for issue 29): the reconciler's own work, judged on the references still pending, at
// most 1.1x the direct calls. The half-paid mix and the paid references alone are context: they measure applying
// events through the receiver's exactly-once pipeline more than the reconciler.
// Writes bench/results/reconcile-overhead.md.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createReconciler, QrisClient } from "@kirimbayar/core";
import { createWebhookReceiver, tokenVerifier } from "@kirimbayar/core/webhooks";
import { createFakeProvider } from "@kirimbayar/testing";
import { formatInterval, goalComment, median, medianInterval, VERDICT_WORDS, verdict } from "../lib/stats.mjs";
import { contextComment } from "../lib/summary.mjs";

const GOAL = 1.1;
const quick = process.env.KIRIMBAYAR_BENCH_QUICK === "1";
const PAYMENTS = quick ? 1_000 : 10_000;
const ROUNDS = quick ? 2 : 15;
const CONCURRENCY = 4;
const TOKEN = "bench-qris-token";
const benchDir = dirname(dirname(fileURLToPath(import.meta.url)));
// `gc()` without a command-line flag, so `node run.mjs` and bench/run-all.mjs start it as before.
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc");

// The shop was down for every delivery: the payments are found only by reconciliation.
// No request log: it would grow by 20,000 records a round, and the major collections of that growing heap fell
// mostly on the side that allocates more (per-round ratios drifted from 1.3x to 2x over 15 rounds).
const provider = createFakeProvider({
  rateLimit: false,
  recordRequests: false,
  webhooks: {
    qrisUrl: `https://shop.example.co.id/webhooks/qris?token=${TOKEN}`,
    fetch: async () => new Response("", { status: 500 }),
  },
});
const qris = new QrisClient({
  apiKey: provider.apiKeys.qris[0] ?? "",
  baseUrl: provider.baseUrl,
  fetch: provider.fetch,
});

const references = [];
for (let i = 0; i < PAYMENTS; i++) {
  const { data } = await qris.generateQris({ qris_id: 1, amount: 10_000 + i, output_type: "string" });
  if (i % 2 === 0) await provider.qris.pay(String(data.history_id));
  references.push({ source: "qris", history_id: String(data.history_id), amount: data.final_amount });
}

async function inWorkers(items, work) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

async function direct(list = references) {
  collectGarbage();
  const started = performance.now();
  await inWorkers(list, (reference) => qris.getQrisPaymentStatus(reference.history_id));
  return performance.now() - started;
}

async function reconciled(list = references) {
  let applied = 0;
  const receiver = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [TOKEN], in: "query" })],
  }).on("payment.success", async () => {
    applied++;
  });
  const reconciler = createReconciler({
    receivers: { qris: receiver },
    clients: { qris },
    concurrency: CONCURRENCY,
    minIntervalPerIdMs: 0,
  });
  collectGarbage();
  const started = performance.now();
  const results = await reconciler.reconcile(list);
  const elapsed = performance.now() - started;
  const failed = results.filter((result) => result.outcome === "failed").length;
  const paid = results.filter((result) => result.providerStatus === "paid").length;
  if (failed > 0 || applied !== paid) {
    throw new Error(`reconciliation applied ${applied} of ${paid} paid, and failed ${failed} of ${list.length}`);
  }
  return elapsed;
}

/** One round over `list`: both sides back to back, odd rounds direct first, even rounds reconciled first. */
async function pairedRound(round, list = references) {
  const ms = {};
  for (const side of round % 2 === 1 ? ["direct", "reconciled"] : ["reconciled", "direct"]) {
    ms[side] = side === "direct" ? await direct(list) : await reconciled(list);
  }
  return ms;
}

await direct(); // warm-up, not reported
await reconciled();
// The goal: the references still pending (the reconciler's own work around each status call).
const pending = references.filter((_, i) => i % 2 === 1);
const runs = { direct: [], reconciled: [] };
for (let round = 1; round <= ROUNDS; round++) {
  const ms = await pairedRound(round, pending);
  for (const side of ["direct", "reconciled"]) runs[side].push(ms[side]);
  console.log(
    `round ${round}: direct ${ms.direct.toFixed(0)} ms, reconciled ${ms.reconciled.toFixed(0)} ms for ${pending.length} pending references`,
  );
}
const ratios = runs.reconciled.map((ms, i) => ms / runs.direct[i]);

// Context: the half-paid mix (the goal until issue 29) and the paid references alone, each paid one also applied
// through the receiver's exactly-once pipeline.
const CONTEXT_ROUNDS = quick ? 1 : 7;
const context = {};
for (const [name, list] of [
  ["all 10,000, half paid", references],
  ["paid only", references.filter((_, i) => i % 2 === 0)],
]) {
  const rounds = [];
  for (let round = 1; round <= CONTEXT_ROUNDS; round++) {
    const ms = await pairedRound(round, list);
    rounds.push({ ratio: ms.reconciled / ms.direct, extraMicros: ((ms.reconciled - ms.direct) * 1000) / list.length });
  }
  context[name] = {
    ratio: median(rounds.map((x) => x.ratio)),
    interval: medianInterval(rounds.map((x) => x.ratio)),
    extraMicros: median(rounds.map((x) => x.extraMicros)),
  };
}
const ratio = median(ratios);
const interval = medianInterval(ratios);
const result = verdict(interval, GOAL, "at-most");
const perCall = (ms) => `${((median(ms) * 1000) / pending.length).toFixed(1)} µs`;
const mix = context["all 10,000, half paid"];
const fragment = `## Reconciliation vs the same status calls made directly

${PAYMENTS.toLocaleString("en")} pending QR payments in the in-process fake provider (\`@kirimbayar/testing\`), half of them paid while every
webhook delivery failed. "Direct": \`QrisClient.getQrisPaymentStatus\` for each, ${CONCURRENCY} at a time. "Reconciled":
\`createReconciler({ concurrency: ${CONCURRENCY}, minIntervalPerIdMs: 0 }).reconcile(references)\`, which also turns each paid one into
its event and runs it through a fresh receiver's handler and memory idempotency store. The goal is judged on the
${pending.length.toLocaleString("en")} references still pending (the reconciler's own work around each status call): ${ROUNDS} rounds, the side that goes first
alternates, each side starts from a collected heap; the goal figure is the median of the per-round ratios, with a confidence interval from the rounds.

| Side (still-pending references) | per reference (median) |
| --- | ---: |
| direct status calls | ${perCall(runs.direct)} |
| reconciliation | ${perCall(runs.reconciled)} |

Reconciliation / direct, still-pending references: **${ratio.toFixed(2)}x**, interval ${formatInterval(interval)} (goal at most ${GOAL.toFixed(2)}x): **${VERDICT_WORDS[result]}**.
Per round: ${ratios.map((r) => r.toFixed(2)).join(", ")}.

Context (${CONTEXT_ROUNDS} rounds each, same method), with paid references, each also applied through the receiver's
exactly-once pipeline:

| References | reconciliation / direct | extra per reference |
| --- | ---: | ---: |
${Object.entries(context)
  .map(
    ([name, c]) =>
      `| ${name} | ${c.ratio.toFixed(2)}x (${formatInterval(c.interval)}) | ${c.extraMicros.toFixed(1)} µs |`,
  )
  .join("\n")}

${goalComment({ what: `reconciling ${pending.length.toLocaleString("en")} still-pending references vs the same status calls made directly`, measured: `${ratio.toFixed(2)}x`, target: `<= ${GOAL.toFixed(2)}x`, result, interval: formatInterval(interval) })}
${contextComment({ what: `reconciling ${PAYMENTS.toLocaleString("en")} references, half paid, vs the same status calls made directly`, measured: `${mix.ratio.toFixed(2)}x`, interval: formatInterval(mix.interval), why: "the goal until issue 29: the paid half measures applying events (exactly-once pipeline) more than the reconciler" })}
`;
mkdirSync(join(benchDir, "results"), { recursive: true });
writeFileSync(join(benchDir, "results/reconcile-overhead.md"), fragment);
console.log(fragment);
