#!/usr/bin/env node
// In-process cost per delivery of the token-verified QR path as the Hono adapter drives it (`receiver.handle` with a
// Node-style header object, a URL carrying `?token=`, and a Uint8Array body), next to the hand-rolled route of
// bench/adapters (token compare, JSON.parse, zod, lru-cache) over the same events. Contenders run in interleaved
// rounds, order rotated; figures are medians over rounds. Bounded by ROUNDS and TIME_LIMIT_MS.
// Uses the BUILT core. Usage: node bench/webhook-pipeline/token-path.mjs [--rounds 41] [--events 2000]
import { parseArgs } from "node:util";
import { createWebhookReceiver, tokenVerifier } from "@kirimbayar/core/webhooks";
import { createHandRolled, TOKEN } from "../adapters/handrolled.mjs";
import { qrisSuccessBody } from "../lib/payloads.mjs";

const { values: args } = parseArgs({
  options: { rounds: { type: "string", default: "41" }, events: { type: "string", default: "2000" } },
});
const ROUNDS = Math.min(Number(args.rounds), 201);
const EVENTS = Math.min(Number(args.events), 20_000);
const TIME_LIMIT_MS = 60_000;

const url = `http://127.0.0.1:3000/webhooks/qris?token=${TOKEN}`;
const encoder = new TextEncoder();
// What node's IncomingMessage#headers holds for an autocannon request.
const headersOf = (length) => ({
  host: "127.0.0.1:3000",
  connection: "keep-alive",
  "content-type": "application/json",
  "content-length": String(length),
});

const makeReceiver = () => {
  const receiver = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
    idempotency: { retentionMs: 24 * 60 * 60 * 1000 },
  });
  receiver.on("payment.success", () => {});
  return receiver;
};

let nextId = 1;
const contenders = {
  handrolled: () => {
    const handle = createHandRolled();
    return (text) => {
      const [status] = handle(TOKEN, text);
      if (status !== 200) throw new Error(`hand-rolled answered ${status}`);
    };
  },
  kirimbayar: () => {
    const receiver = makeReceiver();
    return async (text) => {
      const rawBody = encoder.encode(text);
      const response = await receiver.handle({ method: "POST", url, headers: headersOf(rawBody.length), rawBody });
      if (response.status !== 200) throw new Error(`kirimbayar answered ${response.status}: ${response.body}`);
    };
  },
  "kirimbayar-duplicate": () => {
    const receiver = makeReceiver();
    const text = qrisSuccessBody(1);
    return async () => {
      const rawBody = encoder.encode(text);
      const response = await receiver.handle({ method: "POST", url, headers: headersOf(rawBody.length), rawBody });
      if (response.status !== 200) throw new Error(`duplicate answered ${response.status}`);
    };
  },
};
const runners = Object.fromEntries(Object.entries(contenders).map(([name, make]) => [name, make()]));
const names = Object.keys(runners);
const samples = Object.fromEntries(names.map((name) => [name, []]));

// Inputs are built outside the timed loop; encoding the body is part of every kirimbayar sample (the adapter does
// an equivalent copy), so the hand-rolled one pays a TextEncoder pass too to keep the comparison even.
const started = Date.now();
for (let round = 0; round < ROUNDS && Date.now() - started < TIME_LIMIT_MS; round++) {
  const texts = Array.from({ length: EVENTS }, () => qrisSuccessBody(`H-${nextId++}`));
  for (let k = 0; k < names.length; k++) {
    const name = names[(round + k) % names.length];
    const run = runners[name];
    const t0 = process.hrtime.bigint();
    for (const text of texts) {
      if (name === "handrolled") {
        encoder.encode(text);
        run(text);
      } else await run(text);
    }
    samples[name].push(Number(process.hrtime.bigint() - t0) / 1000 / EVENTS);
  }
  if (round === 0) for (const name of names) samples[name].length = 0; // warm-up round
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const base = median(samples.handrolled);
console.log(`rounds ${samples.handrolled.length}, ${EVENTS} events each`);
for (const name of names) {
  const us = median(samples[name]);
  console.log(
    `${name.padEnd(22)} ${us.toFixed(2).padStart(7)} µs/delivery  (${(us - base).toFixed(2)} µs over hand-rolled)`,
  );
}
