#!/usr/bin/env node
// What the fake provider costs a host app's test suite, per test (issue 19). The test is the one every shop writes:
// build a webhook receiver, create a QR payment through `QrisClient`, the customer pays, the receiver handles
// `payment.success` in-process and the order is paid. Contenders, side by side in every round (order rotated):
// - fake: a new `createFakeProvider()` per test, the client on `provider.fetch`, `provider.qris.pay()` delivering to
//   `receiver.fetch` (what the testing package's README shows);
// - hand stub: the same test written without the kit: a `fetch` stub answering a hand-written generate response,
//   and a hand-built `payment.success` Request passed to `receiver.fetch`;
// - fake + reset: one fake for the whole suite, `provider.reset()` after each test (context).
// Goals: fake ÷ hand stub ≤ 1.5×; `provider.reset()` cheaper than `createFakeProvider()` (the two operations timed
// alone, a finished test's state in the fake before each reset). Medians of per-round ratios with intervals
// (bench/lib/stats.mjs). Uses the BUILT packages. Writes bench/results/fake-lifecycle.md.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { QrisClient } from "@kirimbayar/core";
import { createWebhookReceiver, tokenVerifier } from "@kirimbayar/core/webhooks";
import { createFakeProvider } from "@kirimbayar/testing";
import { formatInterval, goalComment, median, medianInterval, VERDICT_WORDS, verdict } from "../lib/stats.mjs";

// Each block starts from an empty young generation, so one contender's garbage is not collected on the next one's
// time. Re-runs this script with --expose-gc when it was started without it.
if (typeof globalThis.gc !== "function") {
  const child = spawnSync(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: "inherit",
    timeout: 120_000,
  });
  process.exit(child.status ?? 1);
}

const GOAL = 1.5;
const quick = process.env.KIRIMBAYAR_BENCH_QUICK === "1";
const ROUNDS = quick ? 4 : 31;
const TESTS_PER_ROUND = quick ? 100 : 400;
const BLOCKS = quick ? 4 : 8;
const OPS_PER_ROUND = quick ? 100 : 400;
const TIME_LIMIT_MS = quick ? 10_000 : 35_000;
const TOKEN = "bench-qris-token";
const WEBHOOK_URL = `https://shop.test/webhooks/qris?token=${TOKEN}`;

/** The host app under test: a receiver marking orders paid. */
function shopReceiver() {
  const paid = new Set();
  const receiver = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [TOKEN], in: "query" })],
  });
  receiver.on("payment.success", (event) => {
    paid.add(String(event.data.qris_history_id));
  });
  return { receiver, paid };
}

// --- with the fake, a new one per test ---------------------------------------------------------------------------
async function fakeTest() {
  const { receiver, paid } = shopReceiver();
  const provider = createFakeProvider({ webhooks: { qrisUrl: WEBHOOK_URL, fetch: (r) => receiver.fetch(r) } });
  const qris = new QrisClient({ apiKey: provider.apiKeys.qris[0], baseUrl: provider.baseUrl, fetch: provider.fetch });
  const { data } = await qris.generateQris({ qris_id: 1, amount: 50_000, output_type: "string" });
  const id = String(data.history_id);
  await provider.qris.pay(id);
  if (!paid.has(id) || provider.deliveries[0]?.status !== 200) throw new Error("fake: the order was not paid");
}

// --- with one fake for the suite, reset after each test ------------------------------------------------------------
let current;
const shared = createFakeProvider({ webhooks: { qrisUrl: WEBHOOK_URL, fetch: (r) => current.fetch(r) } });
async function resetTest() {
  const { receiver, paid } = shopReceiver();
  current = receiver;
  const qris = new QrisClient({ apiKey: shared.apiKeys.qris[0], baseUrl: shared.baseUrl, fetch: shared.fetch });
  const { data } = await qris.generateQris({ qris_id: 1, amount: 50_000, output_type: "string" });
  const id = String(data.history_id);
  await shared.qris.pay(id);
  if (!paid.has(id) || shared.deliveries[0]?.status !== 200) throw new Error("reset: the order was not paid");
  shared.reset();
}

// --- the same test with a hand stub --------------------------------------------------------------------------------
let sequence = 0;
async function stubTest() {
  const { receiver, paid } = shopReceiver();
  sequence++;
  const historyId = `0b5e8a52-7d1c-4f3e-9a77-${String(sequence).padStart(12, "0")}`;
  const fetchStub = async () =>
    Response.json({
      success: true,
      message: "QRIS generated successfully",
      data: {
        history_id: historyId,
        qris_id: 1,
        qris_string:
          "00020101021226530020ID.CO.KIRIMBAYAR.WWW01189360091460000000010303UMI51440014ID.CO.QRIS.WWW0215ID10260000000010303UMI5204581253033605405501235802ID5915TOKO KIRIMBAYAR6013JAKARTA PUSAT610510110621205080b5e8a5263043FAE",
        original_amount: 50_000,
        final_amount: 50_123,
        unique_code: 123,
        payment_status: "unpaid",
        expiry_time: "2026-01-15 10:15:00",
        created_at: "2026-01-15T03:00:00Z",
      },
    });
  const qris = new QrisClient({ apiKey: "qris_test_key", baseUrl: "https://stub.test", fetch: fetchStub });
  const { data } = await qris.generateQris({ qris_id: 1, amount: 50_000, output_type: "string" });
  const webhook = new Request(WEBHOOK_URL, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      event: "payment.success",
      timestamp: "2026-01-15T03:01:00Z",
      data: {
        qris_history_id: data.history_id,
        qris_id: "8d0f6a0e-2b8c-4c7e-9d3e-5f1a2b3c4d5e",
        amount: data.final_amount,
        original_amount: data.original_amount,
        status: "paid",
        paid_at: "2026-01-15T03:01:00Z",
        payment_method: "QRIS",
        payment_provider: "GoPay",
        created_at: "2026-01-15T03:00:00Z",
      },
    }),
  });
  const response = await receiver.fetch(webhook);
  if (response.status !== 200 || !paid.has(historyId)) throw new Error("stub: the order was not paid");
}

const tests = [
  { name: "new fake per test", run: fakeTest },
  { name: "hand stub", run: stubTest },
  { name: "one fake, `reset()` after each test", run: resetTest },
];

async function timeTests(run, count) {
  globalThis.gc({ type: "minor" });
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) await run();
  return Number(process.hrtime.bigint() - started) / 1_000 / count;
}

// The two operations alone, timed the same way: one at a time, each right after a finished test (untimed) on the
// fake about to be reset, so both start from the same warm state.
const dirty = createFakeProvider({ webhooks: { qrisUrl: WEBHOOK_URL, fetch: (r) => current.fetch(r) } });
async function finishedTest() {
  const { receiver } = shopReceiver();
  current = receiver;
  const qris = new QrisClient({ apiKey: dirty.apiKeys.qris[0], baseUrl: dirty.baseUrl, fetch: dirty.fetch });
  const { data } = await qris.generateQris({ qris_id: 1, amount: 50_000, output_type: "string" });
  await dirty.qris.pay(String(data.history_id));
}
async function timeOps(count, resetFirst) {
  let resetNs = 0n;
  let newNs = 0n;
  const held = [];
  for (let i = 0; i < count; i++) {
    for (const op of resetFirst === (i % 2 === 0) ? ["reset", "new"] : ["new", "reset"]) {
      await finishedTest();
      if (op === "reset") {
        const started = process.hrtime.bigint();
        dirty.reset();
        resetNs += process.hrtime.bigint() - started;
      } else {
        const started = process.hrtime.bigint();
        const fake = createFakeProvider({ webhooks: { qrisUrl: WEBHOOK_URL, fetch: (r) => current.fetch(r) } });
        newNs += process.hrtime.bigint() - started;
        held.push(fake);
      }
    }
    dirty.reset();
  }
  if (held.length !== count) throw new Error("lost a fake");
  return { reset: Number(resetNs) / 1_000 / count, new: Number(newNs) / 1_000 / count };
}

// Warm-up (JIT, the shared app and its router), not counted.
for (const test of tests) await timeTests(test.run, 200);
await timeOps(100, true);

const samples = tests.map(() => []);
const resetUs = [];
const newUs = [];
const began = Date.now();
let rounds = 0;
while (rounds < ROUNDS && Date.now() - began < TIME_LIMIT_MS) {
  // Short blocks, interleaved: where a block falls (after which contender's garbage, which GC phase) moves the
  // figures by up to 2x on these machines, so each round spreads every contender over the whole round.
  const totals = tests.map(() => 0);
  for (let block = 0; block < BLOCKS; block++) {
    for (let i = 0; i < tests.length; i++) {
      const index = (i + block + rounds) % tests.length;
      totals[index] += await timeTests(tests[index].run, TESTS_PER_ROUND / BLOCKS);
    }
  }
  for (const [index, total] of totals.entries()) samples[index].push(total / BLOCKS);
  const ops = await timeOps(OPS_PER_ROUND, rounds % 2 === 0);
  resetUs.push(ops.reset);
  newUs.push(ops.new);
  rounds++;
}

const [fakeUs, stubUs, resetTestUs] = samples;
const ratios = fakeUs.map((us, i) => us / stubUs[i]);
const resetRatios = resetTestUs.map((us, i) => us / stubUs[i]);
const opRatios = resetUs.map((us, i) => us / newUs[i]);
const interval = medianInterval(ratios);
const resetInterval = medianInterval(resetRatios);
const opInterval = medianInterval(opRatios);
const result = verdict(interval, GOAL, "at-most");
const opResult = verdict(opInterval, 1, "at-most");
const us = (values) => `${median(values).toFixed(1)} µs`;

const fragment = `## Per-test cost of the fake provider

One host-app test: build a webhook receiver (token verifier), create a QR payment with \`QrisClient.generateQris\`,
the customer pays, the receiver handles \`payment.success\` in-process and the order is paid. Built packages;
${rounds} rounds of ${TESTS_PER_ROUND} tests per contender, run in ${BLOCKS} interleaved blocks (order rotated, a minor
GC before each block), after a warm-up.

| Test written with | Per test (median) | ÷ hand stub (median of rounds) | Interval |
| --- | ---: | ---: | ---: |
| a new \`createFakeProvider()\` | ${us(fakeUs)} | ${median(ratios).toFixed(2)}x | ${formatInterval(interval)} |
| a hand stub (\`fetch\` stub + hand-built webhook Request) | ${us(stubUs)} | 1.00x | – |
| one fake for the suite, \`reset()\` after each test (context) | ${us(resetTestUs)} | ${median(resetRatios).toFixed(2)}x | ${formatInterval(resetInterval)} |

The operations alone (${OPS_PER_ROUND} of each per round, timed one at a time, each right after a finished test):

| Operation | Time (median) |
| --- | ---: |
| \`createFakeProvider({ webhooks })\` | ${us(newUs)} |
| \`provider.reset()\` | ${us(resetUs)} |
| reset ÷ new (median of rounds) | ${median(opRatios).toFixed(2)}x, interval ${formatInterval(opInterval)} |

Goals: a test with the fake at most ${GOAL}x the hand-stubbed test (**${VERDICT_WORDS[result]}**); \`reset()\` cheaper
than a new fake (**${VERDICT_WORDS[opResult]}**).

${goalComment({ what: "host-app test with a new fake ÷ with a hand stub", measured: `${median(ratios).toFixed(2)}x`, target: `<= ${GOAL}x`, result, interval: formatInterval(interval) })}
${goalComment({ what: "fake.reset() ÷ createFakeProvider()", measured: `${median(opRatios).toFixed(2)}x`, target: "< 1x", result: opResult, interval: formatInterval(opInterval) })}
`;

const resultsDir = join(dirname(dirname(fileURLToPath(import.meta.url))), "results");
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, "fake-lifecycle.md"), fragment);
console.log(fragment);
