import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { earlyRunsOf, earlyWindowWords, processCpuMs, runConcurrently, warmWindows } from "./concurrent-runs.mjs";
import { pinnedNode, pinningWords } from "./cpu-pinning.mjs";

const dir = mkdtempSync(join(tmpdir(), "kirimbayar-concurrent-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A server that answers every POST with its status after burning `spin` µs of CPU: the dearer route.
const server = join(dir, "server.mjs");
writeFileSync(
  server,
  `import { createServer } from "node:http";
const spinUs = Number(process.argv[2]);
const status = Number(process.argv[3] ?? 200);
const s = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const until = performance.now() + spinUs / 1000;
    while (performance.now() < until) {}
    res.statusCode = status;
    res.end("ok");
  });
});
s.listen(0, "127.0.0.1", () => console.log("ready " + s.address().port));
process.on("SIGTERM", () => process.exit(0));
`,
);

// A server that answers 409 to a body it has seen before: a measured request that repeats a warm-up's event shows.
const dedupServer = join(dir, "dedup-server.mjs");
writeFileSync(
  dedupServer,
  `import { createServer } from "node:http";
const seen = new Set();
const s = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    res.statusCode = seen.has(body) ? 409 : 200;
    seen.add(body);
    res.end("ok");
  });
});
s.listen(0, "127.0.0.1", () => console.log("ready " + s.address().port));
process.on("SIGTERM", () => process.exit(0));
`,
);

describe("runConcurrently", () => {
  it("runs the request sequence on from the warm-up, and measures the early window apart", async () => {
    const results = await runConcurrently(
      [{ name: "fresh", args: [dedupServer], body: (sequence) => JSON.stringify({ sequence }) }],
      { connections: 4, durationS: 0.5, warmupS: 1.2, early: { afterS: 0.2, durationS: 0.5 }, path: "/" },
    );
    const { early, ...measured } = results.fresh;
    expect(early.total).toBeGreaterThan(0);
    expect(measured.total).toBeGreaterThan(0);
    // Every request of the three windows carried a new body: none was answered 409.
    expect(early.non2xx + measured.non2xx).toBe(0);
    expect(early.perCpuSecond).toBeGreaterThan(0);
  }, 30_000);

  it("serves the routes at once and reads each server's requests per CPU-second", async () => {
    const body = () => "{}";
    const results = await runConcurrently(
      [
        { name: "cheap", args: [server, "50"], body },
        { name: "dear", args: [server, "400"], body },
      ],
      { connections: 4, durationS: 1, warmupS: 0, path: "/" },
    );
    expect(results.cheap.total).toBeGreaterThan(0);
    expect(results.dear.total).toBeGreaterThan(0);
    expect(results.cheap.non2xx + results.dear.non2xx).toBe(0);
    expect(results.dear.cpuMs).toBeGreaterThan(0);
    // Eight times the CPU per request: far fewer requests per CPU-second, whatever the machine's load.
    expect(results.dear.perCpuSecond).toBeLessThan(results.cheap.perCpuSecond / 2);
  }, 30_000);

  it("reports non-2xx answers for the caller to refuse", async () => {
    const results = await runConcurrently([{ name: "failing", args: [server, "0", "503"], body: () => "{}" }], {
      connections: 2,
      durationS: 0.5,
      warmupS: 0,
      path: "/",
    });
    expect(results.failing.non2xx).toBeGreaterThan(0);
  }, 30_000);
});

describe("warmWindows and earlyRunsOf", () => {
  it("measures after the early window and the warm-up, and gives each run's early figures in the runs' shape", () => {
    for (const quick of [false, true]) {
      const windows = warmWindows(quick);
      expect(windows.early.afterS + windows.early.durationS).toBeLessThan(windows.warmupS);
    }
    expect(earlyWindowWords(warmWindows(false))).toBe("1-4 s");
    const runs = {
      a: [{ perCpuSecond: 10, early: { perCpuSecond: 4 } }],
      b: [{ perCpuSecond: 8, early: { perCpuSecond: 3 } }],
    };
    expect(earlyRunsOf(runs)).toEqual({ a: [{ perCpuSecond: 4 }], b: [{ perCpuSecond: 3 }] });
  });
});

describe("processCpuMs", () => {
  it("reads this process's CPU time, and nothing for a process that does not exist", () => {
    expect(processCpuMs(process.pid)).toBeGreaterThanOrEqual(0);
    expect(processCpuMs(2 ** 22 + 12_345)).toBeUndefined();
  });
});

describe("cpu pinning", () => {
  it("runs Node under taskset on the server's cores, or plainly when unpinned", () => {
    expect(pinnedNode(["a.mjs"], "1")).toEqual(["taskset", ["-c", "1", process.execPath, "a.mjs"]]);
    expect(pinnedNode(["a.mjs"], undefined)).toEqual([process.execPath, ["a.mjs"]]);
    expect(pinningWords(undefined)).toMatch(/shares every core/);
    expect(pinningWords("1")).toMatch(/core 1/);
  });
});
