// The coalescing section: 100 identical quotes at once, in one process, and from two processes sharing one Redis;
// provider calls per courier counted by the callers' own fetch, over several rounds on new routes.
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ShippingClient } from "@kirimbayar/core";
import { createRateQuoter } from "@kirimbayar/core/quoter";
import { countingFetch, routes, startFake } from "./trace.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const COURIERS = ["jne", "sicepat", "jnt", "pos", "anteraja"];
const QUOTES = 100;

/** Most calls any courier got in any round, and whether every quote was complete. */
function summarise(rounds) {
  return {
    rounds: rounds.length,
    maxCallsPerCourier: Math.max(...rounds.flatMap((r) => Object.values(r.calls))),
    minCallsPerCourier: Math.min(...rounds.flatMap((r) => Object.values(r.calls))),
    allComplete: rounds.every((r) => r.complete === QUOTES),
  };
}

export async function inProcess(rounds) {
  const fake = await startFake();
  try {
    const list = routes(200);
    const results = [];
    for (let round = 0; round < rounds; round++) {
      const counting = countingFetch();
      const quoter = createRateQuoter({
        client: new ShippingClient({ apiKey: fake.key, baseUrl: fake.url, fetch: counting.fetch }),
        couriers: COURIERS,
      });
      const { origin, destination } = list[round];
      const quotes = await Promise.all(
        Array.from({ length: QUOTES }, () => quoter.quote({ origin, destination, weight: 1_000 })),
      );
      results.push({
        calls: Object.fromEntries(COURIERS.map((c) => [c, counting.of(c)])),
        complete: quotes.filter((q) => q.complete).length,
      });
    }
    return summarise(results);
  } finally {
    await fake.stop();
  }
}

function startInstance(args) {
  const child = spawn(process.execPath, [join(here, "instance.mjs"), ...args], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await Promise.race([
      lines.next(),
      new Promise((_, reject) => setTimeout(() => reject(new Error("an instance did not answer within 30 s")), 30_000)),
    ]);
    if (done) throw new Error("an instance exited");
    return value;
  };
  return { child, next };
}

export async function acrossProcesses(rounds, redisUrl) {
  const fake = await startFake();
  const prefix = `bench:coalesce:${Date.now()}:`;
  const instances = [0, 1].map(() => startInstance([fake.url, fake.key, redisUrl, prefix, COURIERS.join(":")]));
  try {
    for (const instance of instances) {
      if ((await instance.next()) !== "ready") throw new Error("an instance did not start");
    }
    const list = routes(200);
    const results = [];
    for (let round = 0; round < rounds; round++) {
      const { origin, destination } = list[100 + round];
      // Both instances get their line in the same turn of this loop: their 50 quotes each start together.
      for (const instance of instances) instance.child.stdin.write(`go ${origin} ${destination} ${QUOTES / 2}\n`);
      const answers = await Promise.all(instances.map(async (instance) => JSON.parse(await instance.next())));
      results.push({
        calls: Object.fromEntries(COURIERS.map((c) => [c, answers[0].calls[c] + answers[1].calls[c]])),
        complete: answers[0].complete + answers[1].complete,
      });
    }
    return summarise(results);
  } finally {
    for (const instance of instances) {
      instance.child.stdin.end();
      instance.child.kill("SIGTERM");
    }
    await fake.stop();
  }
}
