import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

export const run = promisify(execFile);
export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

/** One published package of the workspace, with the entry points its `exports` map declares. */
export interface PublishedPackage {
  name: string;
  dir: string;
  /** Import specifiers of every entry point other than `./package.json`, e.g. `@kirimbayar/core/webhooks`. */
  entryPoints: string[];
  peerDependencies: Record<string, string>;
  /** The peers `peerDependenciesMeta` marks optional. */
  optionalPeers: string[];
  /** Names of the runtime dependencies (`dependencies`). */
  dependencies: string[];
}

export const publishedPackageDirs = ["console", "core", "express", "fastify", "hono", "inbox", "nestjs", "testing"];

export function readPublishedPackages(): PublishedPackage[] {
  return publishedPackageDirs.map((folder) => {
    const dir = join(repoRoot, "packages", folder);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const entryPoints = Object.keys(manifest.exports)
      .filter((key) => key !== "./package.json")
      .map((key) => (key === "." ? manifest.name : `${manifest.name}/${key.slice(2)}`));
    const meta: Record<string, { optional?: boolean }> = manifest.peerDependenciesMeta ?? {};
    return {
      name: manifest.name,
      dir,
      entryPoints,
      peerDependencies: manifest.peerDependencies ?? {},
      optionalPeers: Object.keys(meta).filter((name) => meta[name]?.optional === true),
      dependencies: Object.keys(manifest.dependencies ?? {}),
    };
  });
}

/**
 * Versions of the peers a consumer app installs. NestJS is 11 here: NestJS 12 is ESM-only, so a CommonJS consumer
 * under node16 resolution cannot type-check against it at all, and CJS Nest apps are on 11. The workspace's own
 * tests run the adapter on NestJS 12.
 */
export const consumerPeers: Record<string, string> = {
  zod: "4.6.7",
  express: "5.3.0",
  "@types/express": "5.0.6",
  hono: "4.13.19",
  fastify: "5.12.8",
  "pg-boss": "10.4.2",
  bullmq: "6.7.0",
  ioredis: "5.11.1",
  "@nestjs/common": "11.2.10",
  "@nestjs/core": "11.2.10",
  "@nestjs/platform-express": "11.2.10",
  "@nestjs/platform-fastify": "11.2.8",
  "reflect-metadata": "0.2.2",
  rxjs: "7.8.2",
  msw: "2.15.0",
  "@types/node": "20.19.43",
};

/**
 * Packs every published package with `pnpm pack` into `into` (one recursive run: workspace versions become
 * ranges, as on publish) and returns each package's tarball as a `file:` specifier, by name.
 */
export async function packAll(packages: readonly PublishedPackage[], into: string): Promise<Record<string, string>> {
  await run("pnpm", ["--recursive", "--filter", "./packages/*", "pack", "--pack-destination", into], {
    cwd: repoRoot,
    maxBuffer: 16 * 1024 * 1024,
  });
  const files = await readdir(into);
  const tarballs: Record<string, string> = {};
  for (const pkg of packages) {
    const prefix = `${pkg.name.replace("@", "").replace("/", "-")}-`;
    const file = files.find((f) => f.startsWith(prefix) && f.endsWith(".tgz"));
    if (!file) throw new Error(`pnpm pack produced no tarball for ${pkg.name}`);
    tarballs[pkg.name] = `file:${join(into, file)}`;
  }
  return tarballs;
}
