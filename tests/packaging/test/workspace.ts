import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
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
}

export const publishedPackageDirs = ["console", "core", "express", "fastify", "hono", "inbox", "nestjs", "testing"];

export function readPublishedPackages(): PublishedPackage[] {
  return publishedPackageDirs.map((folder) => {
    const dir = join(repoRoot, "packages", folder);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const entryPoints = Object.keys(manifest.exports)
      .filter((key) => key !== "./package.json")
      .map((key) => (key === "." ? manifest.name : `${manifest.name}/${key.slice(2)}`));
    return { name: manifest.name, dir, entryPoints, peerDependencies: manifest.peerDependencies ?? {} };
  });
}
