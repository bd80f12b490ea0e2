// Generates the Prisma clients of the tests' schemas (./schema.prisma, ./mysql/schema.prisma → generated/ beside
// each, gitignored) offline (@kirimbayar/test-prisma-generate: nothing is downloaded). The core tests' vitest
// globalSetup, and run before the typecheck (`node test/prisma/generate.mjs`).
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generatePrismaClient } from "@kirimbayar/test-prisma-generate";

const here = dirname(fileURLToPath(import.meta.url));
// The PostgreSQL shop and the MariaDB one.
const schemas = [join(here, "schema.prisma"), join(here, "mysql", "schema.prisma")];

export default function setup() {
  for (const schema of schemas) generatePrismaClient(schema);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) setup();
