// The checkout trace of the rate-quoter benchmark: 200 routes (three Java warehouses to every destination of the
// fake's data set: it has 90, so a "destination" of the 200 is one warehouse-to-destination route, which is
// what a cache key is made of), drawn by a Zipf law (a few routes are most of the checkouts, as on a sale day), and
// the checkouts replayed open-loop at a fixed rate over real HTTP. Seeded: every run replays the same trace.
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CITIES } from "@kirimbayar/testing";

const here = dirname(fileURLToPath(import.meta.url));

/** A small seeded PRNG (mulberry32): the same seed gives the same trace on every machine. */
export function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ORIGINS = [1_520_101, 230_201, 1_530_101]; // Gambir (Jakarta), Braga (Bandung), a second Jakarta warehouse

/** The routes left out of the trace's 200: for warming a process up without caching any route of the trace. */
export function warmupRoutes() {
  return allRoutes().slice(200);
}

/** `count` distinct (origin, destination) routes of the fake's data set, in a seeded order (rank 1 first). */
export function routes(count = 200) {
  const all = allRoutes();
  if (all.length < count) throw new Error(`the fake's data set has only ${all.length} routes`);
  return all.slice(0, count);
}

function allRoutes(seed = 7) {
  const destinations = CITIES.flatMap((city) => city.districts.flatMap((d) => d.subdistricts.map((s) => s.id)));
  const all = ORIGINS.flatMap((origin) =>
    destinations.filter((destination) => destination !== origin).map((destination) => ({ origin, destination })),
  );
  const random = seeded(seed);
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [all[i], all[j]] = [all[j], all[i]];
  }
  return all;
}

/** `checkouts` route indexes drawn by a Zipf law of exponent `s` over `n` ranks. */
export function zipfTrace(checkouts, n, s = 1, seed = 42) {
  const weights = Array.from({ length: n }, (_, k) => 1 / (k + 1) ** s);
  const total = weights.reduce((a, b) => a + b, 0);
  const cdf = [];
  let sum = 0;
  for (const w of weights) {
    sum += w / total;
    cdf.push(sum);
  }
  const random = seeded(seed);
  return Array.from({ length: checkouts }, () => {
    const u = random();
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  });
}

/**
 * Replays `trace` open-loop: checkout i starts i / `perSecond` s after the start whatever the earlier ones are doing
 * (a busy checkout does not slow the arrivals down). Resolves to each checkout's result and latency in ms.
 */
export async function replay(trace, perSecond, checkout) {
  const started = performance.now();
  return Promise.all(
    trace.map(async (route, i) => {
      const due = started + (i * 1000) / perSecond;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const begin = performance.now();
      try {
        const value = await checkout(route, i);
        return { ms: performance.now() - begin, value, at: begin - started };
      } catch (error) {
        return { ms: performance.now() - begin, error, at: begin - started };
      }
    }),
  );
}

/** The `q` quantile (0..1) of `values`, nearest rank. */
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** Starts the fake provider in its own process with `faults`; resolves to `{ url, key, stop }`. */
export async function startFake(faults = {}) {
  const child = spawn(process.execPath, [join(here, "fake-server.mjs"), JSON.stringify(faults)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [url, key] = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the fake provider did not start within 15 s")), 15_000);
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
      const match = /ready (\S+) (\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve([match[1], match[2]]);
      }
    });
    child.once("exit", (code) => reject(new Error(`the fake provider exited with ${code}`)));
  });
  return {
    url,
    key,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", resolve);
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 3_000).unref();
      }),
  };
}

/** A fetch that counts the cost calls it sends and the couriers each one named. */
export function countingFetch() {
  const calls = [];
  const fetchCounting = (input, init) => {
    const courier = typeof init?.body === "string" ? new URLSearchParams(init.body).get("courier") : null;
    if (courier) calls.push(courier.split(":"));
    return fetch(input, init);
  };
  return { fetch: fetchCounting, calls, of: (courier) => calls.filter((c) => c.includes(courier)).length };
}
