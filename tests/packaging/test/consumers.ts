// The consumer projects of the tarball tests, outside the workspace: tarball-smoke.test.ts loads and runs the packed
// packages in them, tarball-types.test.ts type-checks against them. Both files build them here, so both test the
// same kind of install (each its own copy: vitest runs test files in separate workers).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { consumerPeers, type PublishedPackage, packAll, repoRoot, run } from "./workspace.js";

function peersNeededBy(all: readonly PublishedPackage[]): Record<string, string> {
  const names = new Set(all.flatMap((pkg) => Object.keys(pkg.peerDependencies)));
  names.add("@types/express");
  names.add("@nestjs/platform-express");
  names.add("@types/node");
  return Object.fromEntries(
    [...names].filter((n) => !n.startsWith("@kirimbayar/")).map((n) => [n, consumerPeers[n] ?? "*"]),
  );
}

/** Installs a consumer's dependencies with npm: only what the tarballs and the registry ship, no install scripts. */
const npmInstall = (cwd: string) =>
  run("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
  });

/** A consumer project in a temp folder, and the `file:` specifier of each packed tarball, by package name. */
export interface PlainConsumer {
  readonly dir: string;
  readonly tarballs: Record<string, string>;
}

/** The folder of a consumer project in a temp folder. */
export interface Express4Consumer {
  readonly dir: string;
}

/** Removes a consumer's folder (none when its install never started). */
const removeConsumer = async (consumer: { readonly dir: string }) => {
  if (consumer.dir) await rm(consumer.dir, { recursive: true, force: true });
};

/**
 * The plain consumer of the calling test file (or describe block): installed by `installPlainConsumer` in a
 * `beforeAll`, removed in an `afterAll`. Read its fields inside tests and hooks, once the install has run.
 */
export function plainConsumerForTests(packages: readonly PublishedPackage[]): PlainConsumer {
  const consumer = { dir: "", tarballs: {} };
  beforeAll(async () => {
    Object.assign(consumer, await installPlainConsumer(packages));
  });
  afterAll(() => removeConsumer(consumer));
  return consumer;
}

/**
 * The Express 4 consumer of the calling describe block, from the tarballs of `plain`: installed by
 * `installExpress4Consumer` in a `beforeAll`, removed in an `afterAll`.
 */
export function express4ConsumerForTests(plain: PlainConsumer): Express4Consumer {
  const consumer = { dir: "" };
  beforeAll(async () => {
    consumer.dir = await installExpress4Consumer(plain.tarballs);
  });
  afterAll(() => removeConsumer(consumer));
  return consumer;
}

/**
 * Packs every published package and installs the tarballs with every peer they name (pinned in `consumerPeers`)
 * into a new project in a temp folder, outside the workspace, so nothing resolves through pnpm's links: only what
 * the tarballs ship. The caller removes `dir`.
 */
async function installPlainConsumer(packages: readonly PublishedPackage[]): Promise<PlainConsumer> {
  const dir = await mkdtemp(join(tmpdir(), "kirimbayar-consumer-"));
  const tarballDir = join(dir, "tarballs");
  await mkdir(tarballDir);
  const tarballs = await packAll(packages, tarballDir);
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({ name: "consumer", private: true, dependencies: { ...tarballs, ...peersNeededBy(packages) } }),
  );
  await npmInstall(dir);
  return { dir, tarballs };
}

/**
 * Installs the packed core and Express adapter with Express 4 and @types/express 4 into a new project in a temp
 * folder, as many shops still run. The caller removes the folder it returns.
 */
async function installExpress4Consumer(tarballs: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "kirimbayar-express4-"));
  const dependencies = {
    "@kirimbayar/core": tarballs["@kirimbayar/core"],
    "@kirimbayar/express": tarballs["@kirimbayar/express"],
    express: "4.22.3",
    "@types/express": "4.17.25",
    zod: consumerPeers.zod,
    "@types/node": consumerPeers["@types/node"],
  };
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "express4-consumer", dependencies }));
  await npmInstall(dir);
  return dir;
}

/** The names `specifier` exports in the consumer at `dir`, loaded through `require()` or `import`, sorted. */
export async function exportNames(dir: string, style: "require" | "import", specifier: string): Promise<string[]> {
  const script =
    style === "require"
      ? `require("reflect-metadata"); console.log(JSON.stringify(Object.keys(require(${JSON.stringify(specifier)})).sort()))`
      : `await import("reflect-metadata"); const m = await import(${JSON.stringify(specifier)}); console.log(JSON.stringify(Object.keys(m).filter((k) => k !== "default").sort()))`;
  const args = style === "require" ? ["-e", script] : ["--input-type=module", "-e", script];
  const { stdout } = await run(process.execPath, args, { cwd: dir });
  return JSON.parse(stdout);
}

/**
 * Type-checks `file` in `dir` strictly, library declarations included, with the module settings of
 * `compilerOptions`; returns what tsc printed ("" when the check is clean).
 */
export async function typeCheck(dir: string, file: string, compilerOptions: object | undefined): Promise<string> {
  const strict = {
    target: "es2022",
    strict: true,
    noEmit: true,
    types: ["node"],
    skipLibCheck: false,
    lib: ["es2023", "dom"],
  };
  await writeFile(
    join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { ...compilerOptions, ...strict }, files: [file] }),
  );
  const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");
  const result = await run(process.execPath, [tsc, "-p", dir]).catch((error) => error);
  return withoutKnownThirdPartyErrors(`${result.stdout ?? ""}${result.stderr ?? ""}`);
}

// msw 2's own declarations import the ESM-only `rettime` package, which TypeScript refuses in a CommonJS file under
// node16 resolution (TS1479) for every CJS consumer of msw, with or without @kirimbayar/testing/msw. That one defect
// of msw's is set aside; every other error, in our declarations or anyone's, still fails the check.
function withoutKnownThirdPartyErrors(output: string): string {
  return output
    .split("\n")
    .filter((line) => !(/node_modules\/msw\//.test(line) && line.includes("error TS1479")))
    .join("\n")
    .trim();
}
