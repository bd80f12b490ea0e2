import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readPublishedPackages, repoRoot, run } from "./workspace.js";

// Issue 15 item 1 under Jest, NestJS's default test runner. Jest runs each test file, and every package it
// requires, in a `vm` context of its own, while Node's built-ins stay in the main realm: a promise made by
// `fs.promises` or `node:timers/promises` is a native promise of another realm than the receiver's. The Jest 29
// suite in ../jest-consumer (plain CommonJS, no transform) runs against the packed packages in a throwaway project
// outside the workspace; this test runs it with `--json` and checks every named Jest test passed.

const fixtureDir = join(repoRoot, "tests", "packaging", "jest-consumer");

// Jest 29 (pinned exactly; it runs on Node 20) and a CommonJS NestJS 11 app, as the tarball smoke test's consumer.
const consumerDependencies: Record<string, string> = {
  jest: "29.7.0",
  zod: "4.6.7",
  "@nestjs/common": "11.2.10",
  "@nestjs/core": "11.2.10",
  "@nestjs/platform-express": "11.2.10",
  "@nestjs/testing": "11.2.6",
  "reflect-metadata": "0.2.2",
  rxjs: "7.8.2",
};

/** The packages the Jest suite loads. */
const packed = ["@kirimbayar/core", "@kirimbayar/nestjs", "@kirimbayar/testing"];

/** The Jest tests, by file, as named in ../jest-consumer: each must pass. */
const jestTests: Record<string, string[]> = {
  "plain-handlers.test.js": [
    "a handler returning fs.promises.readFile(missing) gets 500 and the rejection is handled",
    "a handler returning setTimeout(50).then(markPaid) from node:timers/promises gets 200 only after markPaid ran",
  ],
  "nestjs-handler.test.js": [
    "NestJS 11 under Jest: an @OnQrisEvent method returning fs.promises.appendFile(...).then(markPaid) ran markPaid before the fake's delivery got its 200",
  ],
};

interface JestAssertion {
  title: string;
  status: string;
  failureMessages: string[];
}
interface JestSuite {
  name: string;
  status: string;
  message: string;
  assertionResults: JestAssertion[];
}
interface JestReport {
  numRuntimeErrorTestSuites: number;
  numFailedTests: number;
  testResults: JestSuite[];
}

let consumerDir = "";
let jestExit: { code: number; stdout: string; stderr: string } = { code: -1, stdout: "", stderr: "" };
let report: JestReport | undefined;

async function packInto(dir: string): Promise<Record<string, string>> {
  const packages = readPublishedPackages().filter((pkg) => packed.includes(pkg.name));
  await Promise.all(packages.map((pkg) => run("pnpm", ["pack", "--pack-destination", dir], { cwd: pkg.dir })));
  const files = await readdir(dir);
  return Object.fromEntries(
    packages.map((pkg) => {
      const prefix = `${pkg.name.replace("@", "").replace("/", "-")}-`;
      const file = files.find((f) => f.startsWith(prefix) && f.endsWith(".tgz"));
      if (!file) throw new Error(`pnpm pack produced no tarball for ${pkg.name}`);
      return [pkg.name, `file:${join(dir, file)}`];
    }),
  );
}

beforeAll(async () => {
  const started = performance.now();
  consumerDir = await mkdtemp(join(tmpdir(), "kirimbayar-jest-"));
  const tarballDir = join(consumerDir, "tarballs");
  await mkdir(tarballDir);
  const tarballs = await packInto(tarballDir);
  const packedAt = performance.now();
  await writeFile(
    join(consumerDir, "package.json"),
    JSON.stringify({ name: "jest-consumer", private: true, dependencies: { ...tarballs, ...consumerDependencies } }),
  );
  for (const file of await readdir(fixtureDir)) await copyFile(join(fixtureDir, file), join(consumerDir, file));
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], {
    cwd: consumerDir,
    maxBuffer: 64 * 1024 * 1024,
  });
  const installedAt = performance.now();

  // Two workers, so that a test file whose worker crashes is reported as such instead of taking Jest down with it.
  const reportFile = join(consumerDir, "jest-report.json");
  const jest = join(consumerDir, "node_modules", "jest", "bin", "jest.js");
  const args = [jest, "--ci", "--json", `--outputFile=${reportFile}`, "--maxWorkers=2"];
  jestExit = await run(process.execPath, args, { cwd: consumerDir, timeout: 120_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error) => ({ code: typeof error.code === "number" ? error.code : -1, stdout: error.stdout, stderr: error.stderr }),
  );
  report = await readFile(reportFile, "utf8").then(JSON.parse, () => undefined);
  const seconds = (from: number, to: number) => ((to - from) / 1000).toFixed(1);
  console.info(
    `jest consumer: pack ${seconds(started, packedAt)} s, npm install ${seconds(packedAt, installedAt)} s, ` +
      `jest ${seconds(installedAt, performance.now())} s`,
  );
});

afterAll(async () => {
  if (consumerDir) await rm(consumerDir, { recursive: true, force: true });
});

/** Jest's own words about a test (or its file), for a readable failure. */
function explain(suite: JestSuite | undefined, test: JestAssertion | undefined): string {
  if (!report) return `Jest wrote no report (exit ${jestExit.code}):\n${jestExit.stderr}`;
  if (!suite) return `Jest reported no such file:\n${jestExit.stderr.slice(-4000)}`;
  // A test Jest never got to (its worker died) has no failure messages: the file's message says why.
  return (test?.failureMessages.length ? test.failureMessages.join("\n") : suite.message).slice(0, 4000);
}

describe("the packed packages under Jest 29 (other realm for Node's built-ins)", () => {
  const rows = Object.entries(jestTests).flatMap(([file, titles]) => titles.map((title) => ({ file, title })));

  it.each(rows)("$file: $title", ({ file, title }) => {
    const suite = report?.testResults.find((result) => result.name.endsWith(`/${file}`));
    const test = suite?.assertionResults.find((assertion) => assertion.title === title);
    expect(test?.status, explain(suite, test)).toBe("passed");
  });

  it("Jest exited 0 with every test file run to the end (no worker crashed)", () => {
    expect(
      {
        exitCode: jestExit.code,
        suitesWithRuntimeErrors: report?.numRuntimeErrorTestSuites,
        failedTests: report?.numFailedTests,
      },
      jestExit.stderr.slice(-4000),
    ).toEqual({ exitCode: 0, suitesWithRuntimeErrors: 0, failedTests: 0 });
  });
});
