// Generates the Prisma clients of the tests' schemas (./schema.prisma, ./mysql/schema.prisma → generated/ beside
// each, gitignored) offline: `prisma generate` needs no schema engine, but Prisma 7 still tries to download one
// unless told where it is, and these machines cannot reach its host; /bin/true stands in (see TOOLCHAIN.md §8).
// Nothing is downloaded.
// Used as the core tests' vitest globalSetup and before the typecheck (`node test/prisma/generate.mjs`).
import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** Generates the client of `schema` unless its output is newer than the schema. */
export function generatePrismaClient(
  schema = join(here, "schema.prisma"),
  output = join(dirname(schema), "generated"),
) {
  const marker = join(output, "client.ts");
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

// The PostgreSQL shop and the MariaDB one.
const SCHEMAS = [join(here, "schema.prisma"), join(here, "mysql", "schema.prisma")];

/** vitest globalSetup. */
export default function setup() {
  for (const schema of SCHEMAS) generatePrismaClient(schema);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) setup();
