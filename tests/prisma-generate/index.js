// `prisma generate` offline: it needs no schema engine, but Prisma 7 tries to download one unless told where it is,
// and these machines cannot reach its host; /bin/true stands in (TOOLCHAIN.md §8). Nothing is downloaded. The CLI is
// the `prisma` the schema's own package installs, so each caller generates with the version it pins.
import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** @type {import("./index.d.ts").generatePrismaClient} */
export function generatePrismaClient(schema, { marker = join(dirname(schema), "generated", "client.ts") } = {}) {
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(schema).mtimeMs) return false;
  const cli = createRequire(schema).resolve("prisma/build/index.js");
  execFileSync(process.execPath, [cli, "generate", "--schema", schema], {
    env: {
      ...process.env,
      PRISMA_SCHEMA_ENGINE_BINARY: "/bin/true",
      PRISMA_HIDE_UPDATE_MESSAGE: "1",
      CHECKPOINT_DISABLE: "1",
    },
    stdio: ["ignore", "ignore", "inherit"],
    timeout: 120_000,
  });
  return true;
}
