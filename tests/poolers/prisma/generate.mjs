// Generates the Prisma client of ./schema.prisma into ./generated (gitignored) offline, for the Prisma set-up run
// behind PgBouncer: `prisma generate` needs no schema engine, but Prisma 7 tries to download one unless told
// where it is, and these machines cannot reach its host; /bin/true stands in (TOOLCHAIN.md §8). Nothing is downloaded.
// The suite's vitest globalSetup, and run before the typecheck.
import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const schema = join(here, "schema.prisma");

export function generatePrismaClient() {
  const marker = join(here, "generated", "client.ts");
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(schema).mtimeMs) return;
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
}

export default function setup() {
  generatePrismaClient();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) generatePrismaClient();
