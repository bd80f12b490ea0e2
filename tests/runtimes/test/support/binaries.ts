import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

// Bun and Deno ship their binaries in per-platform packages, optional dependencies of `bun` and `deno`. Their
// postinstall scripts (not run by pnpm, which builds only the packages listed in pnpm-workspace.yaml) merely copy
// that binary next to the launcher, so the tests take it from the platform package directly: nothing is downloaded
// or written at test time, and the pid the test kills is the runtime's own, not a launcher's.

const require = createRequire(import.meta.url);

function platformKey(): string {
  return `${process.platform}-${process.arch}`;
}

/** Resolves `file` inside `platformPackage`, as a dependency of `launcher`; throws naming what is missing. */
function binaryOf(launcher: string, platformPackage: string | undefined, file: string): string {
  if (platformPackage === undefined) {
    throw new Error(`${launcher}: no platform package known for ${platformKey()} (see test/support/binaries.ts)`);
  }
  const fromLauncher = createRequire(require.resolve(`${launcher}/package.json`));
  let dir: string;
  try {
    dir = dirname(fromLauncher.resolve(`${platformPackage}/package.json`));
  } catch {
    throw new Error(
      `${launcher}: ${platformPackage} is not installed (an optional dependency of the \`${launcher}\` npm package; ` +
        "run `pnpm install` on this platform)",
    );
  }
  const binary = join(dir, file);
  if (!existsSync(binary)) throw new Error(`${launcher}: ${binary} is missing`);
  return binary;
}

const BUN_PACKAGES: Record<string, string> = {
  "linux-x64": "@oven/bun-linux-x64",
  "linux-arm64": "@oven/bun-linux-aarch64",
  "darwin-x64": "@oven/bun-darwin-x64",
  "darwin-arm64": "@oven/bun-darwin-aarch64",
};

const DENO_PACKAGES: Record<string, string> = {
  "linux-x64": "@deno/linux-x64-glibc",
  "linux-arm64": "@deno/linux-arm64-glibc",
  "darwin-x64": "@deno/darwin-x64",
  "darwin-arm64": "@deno/darwin-arm64",
};

/** The Bun binary of the `bun` npm package. */
export function bunBinary(): string {
  return binaryOf("bun", BUN_PACKAGES[platformKey()], "bin/bun");
}

/** The Deno binary of the `deno` npm package. */
export function denoBinary(): string {
  return binaryOf("deno", DENO_PACKAGES[platformKey()], "deno");
}
