// The Hono webhook app (@kirimbayar/hono) and a QrisClient call (@kirimbayar/core) on Bun, Deno and workerd, each
// from its npm package, answering the same requests exactly as on Node. See ../README.md.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { beforeAll, describe, expect, it } from "vitest";
import { bunBinary, denoBinary } from "./support/binaries.ts";
import { exercise, type Observation } from "./support/exercise.ts";
import {
  bundleWorker,
  bunRuntime,
  denoRuntime,
  nodeRuntime,
  type RuntimeUnderTest,
  workerdRuntime,
} from "./support/runtimes.ts";
import { type Answer, CLIENT_CALL_DEFAULT, CLIENT_CALL_WRAPPER, TABLE_HISTORY_IDS } from "./support/table.ts";

const require = createRequire(import.meta.url);
const PROCESSED = { success: true, message: "Webhook processed" };
const DUPLICATE = { success: true, message: "Duplicate of an event already processed" };

/**
 * A row a runtime is known to answer wrongly because of a bug in the SDK (not in the test). It is left out of the
 * contract and equality checks, must still show exactly its `symptom` (so a different breakage is not hidden), and
 * gets its own `it.fails` with the bug in its name: that test turns red once the bug is fixed, and the entry must
 * then be removed.
 */
interface KnownBug {
  step: string;
  bug: string;
  symptom: { status: number; body: unknown };
}

let reference: Promise<Observation> | undefined;
/** Node's observation, made once: what every other runtime must match. */
function nodeReference(): Promise<Observation> {
  reference ??= exercise(nodeRuntime);
  return reference;
}

function answerOf(observed: Observation, step: string): Answer {
  const answer = observed.answers.find((candidate) => candidate.step === step);
  if (answer === undefined) throw new Error(`no answer for "${step}"`);
  return answer;
}

/** The contract itself, checked on every runtime (Node included) so a failure names the row, not only a diff. */
function expectContract(observed: Observation, knownBugs: readonly KnownBug[]): void {
  const skipped = new Set(knownBugs.map((known) => known.step));
  const row = (step: string) => {
    const { status, body } = answerOf(observed, step);
    return { status, body };
  };
  const refused = (status: number) => ({ status, body: expect.objectContaining({ success: false }) });
  const [first, gzipped] = TABLE_HISTORY_IDS;
  for (const known of knownBugs) expect(row(known.step), `known bug: ${known.bug}`).toEqual(known.symptom);

  expect(row("verified payment.success")).toEqual({ status: 200, body: PROCESSED });
  expect(row("handler ran once")).toEqual({
    status: 200,
    body: [{ event: "payment.success", historyId: first, amount: 100_123 }],
  });
  expect(row("same delivery again")).toEqual({ status: 200, body: DUPLICATE });
  expect(row("forged token")).toEqual(refused(401));
  expect(row("no token")).toEqual(refused(401));
  expect(row("GET")).toEqual(refused(405));
  expect(answerOf(observed, "GET").allow).toBe("POST");
  expect(row("wrong content type")).toEqual(refused(415));
  expect(row("invalid JSON")).toEqual({
    status: 400,
    body: { success: false, message: "Invalid body: body is not valid JSON" },
  });
  expect(row("not UTF-8")).toEqual({ status: 400, body: { success: false, message: "Invalid body: not valid UTF-8" } });
  expect(row("too large (Content-Length)")).toEqual(refused(413));
  expect(row("too large (chunked, no Content-Length)")).toEqual(refused(413));
  expect(row("verified delivery, gzip-encoded")).toEqual({ status: 200, body: PROCESSED });
  expect(row("handler ran for both, once each")).toEqual({
    status: 200,
    body: [
      { event: "payment.success", historyId: first, amount: 100_123 },
      { event: "payment.success", historyId: gzipped, amount: 250_077 },
    ],
  });

  // Each client call reached the fake over HTTP and returned the QR code the fake holds.
  const clientCalls = [
    { step: CLIENT_CALL_WRAPPER, amount: 75_000 },
    { step: CLIENT_CALL_DEFAULT, amount: 50_000 },
  ].filter(({ step }) => !skipped.has(step));
  for (const { step, amount } of clientCalls) {
    const { status, body } = row(step);
    expect(status, `${step}: ${JSON.stringify(body)}`).toBe(200);
    const data = (body as { data: { history_id: string } }).data;
    const fakeQr = observed.fakeQrs.find((qr) => qr.historyId === data.history_id);
    expect(fakeQr, `${step}: the fake has no QR code ${data.history_id}`).toBeDefined();
    expect(body).toEqual({
      status: 200,
      data: expect.objectContaining({
        history_id: fakeQr?.historyId,
        qris_string: fakeQr?.qrisString,
        original_amount: amount,
        final_amount: fakeQr?.finalAmount,
        payment_status: "unpaid",
        qris_id: 1,
      }),
    });
  }
  expect(observed.fakeRequests).toEqual(
    clientCalls.map(() => ({ method: "POST", path: "/user/api/v1/qr/generate-qris", service: "qris", status: 200 })),
  );

  // The fake then paid the first QR code and delivered payment.success to the shop, whose handler recorded it.
  expect(observed.delivery).toEqual({
    event: "payment.success",
    attempt: 1,
    status: 200,
    responseBody: JSON.stringify(PROCESSED),
  });
  expect(observed.eventsAfterDelivery.map((event) => event.historyId)).toEqual([
    first,
    gzipped,
    observed.generatedHistoryId,
  ]);
}

describe("node (reference: @hono/node-server)", () => {
  it("answers the table, makes the client calls and takes the fake's delivery as core's contract says", async () => {
    expectContract(await nodeReference(), []);
  });
});

interface RuntimeSuite {
  title: string;
  runtime: () => RuntimeUnderTest;
  /** Registered first, so their hooks (the workerd bundle) run before the exercise. */
  checks?: () => void;
  knownBugs?: KnownBug[];
}

/** One describe per runtime: the same exercise, the contract, then equality with Node's answers. */
function describeRuntime({ title, runtime, checks, knownBugs = [] }: RuntimeSuite): void {
  describe(title, () => {
    let observed: Observation;
    checks?.();
    beforeAll(async () => {
      observed = await exercise(runtime());
    });
    it("answers every row as core's contract says", () => {
      expectContract(observed, knownBugs);
    });
    it("answers exactly like Node: same statuses, headers that matter and JSON bodies", async () => {
      const node = await nodeReference();
      const skipped = new Set(knownBugs.map((known) => known.step));
      const comparable = (answers: Answer[]) => answers.filter((answer) => !skipped.has(answer.step));
      expect(comparable(observed.answers)).toEqual(comparable(node.answers));
      expect(observed.delivery).toEqual(node.delivery);
      expect(observed.eventsAfterDelivery).toEqual(node.eventsAfterDelivery);
    });
    for (const { step, bug } of knownBugs) {
      it.fails(`KNOWN BUG, remove this entry once fixed: ${bug} ("${step}" does not answer like Node)`, async () => {
        const node = await nodeReference();
        expect(answerOf(observed, step)).toEqual(answerOf(node, step));
      });
    }
  });
}

/** The version the binary reports must be the npm package's: the test runs what `pnpm install` brought. */
function expectBinaryVersion(binary: string, packageName: string, pattern: RegExp): void {
  const { version } = require(`${packageName}/package.json`) as { version: string };
  const output = execFileSync(binary, ["--version"], { encoding: "utf8", timeout: 15_000 });
  expect(pattern.exec(output)?.[1]).toBe(version);
}

describeRuntime({
  title: "bun (npm `bun`, runs worker/bun.ts with Bun.serve)",
  runtime: () => bunRuntime,
  checks: () => {
    it("runs the binary of the installed npm package", () => {
      expectBinaryVersion(bunBinary(), "bun", /^(\S+)/);
    });
  },
});

describeRuntime({
  title: "deno (npm `deno`, runs worker/deno.ts with Deno.serve)",
  runtime: () => denoRuntime,
  checks: () => {
    it("runs the binary of the installed npm package", () => {
      expectBinaryVersion(denoBinary(), "deno", /^deno (\S+)/);
    });
  },
});

let workerCode = "";
describeRuntime({
  title: "workerd (npm `miniflare`, worker/workerd.ts bundled, no nodejs_compat)",
  runtime: () => workerdRuntime(workerCode),
  checks: () => {
    beforeAll(async () => {
      workerCode = await bundleWorker();
    });
    it("bundles to one self-contained ES module (zod, hono and kirimbayar inlined) with no node: import", () => {
      // Import and export statements of the bundle start a line; inlined modules leave only comments naming them.
      expect(workerCode).not.toMatch(/^\s*import[\s{*"']/m);
      expect(workerCode).not.toMatch(/\bimport\s*\(|\brequire\s*\(/);
      expect(workerCode).not.toMatch(/["']node:/);
      expect(workerCode).toMatch(/^\/\/ (?:\.\.\/)*.*node_modules\/.*zod/m);
      expect(workerCode).toMatch(/^\/\/ (?:\.\.\/)*.*node_modules\/.*hono/m);
    });
  },
});
