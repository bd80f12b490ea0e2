// Generates the Prisma client of ./schema.prisma into ./generated (gitignored) offline, for the Prisma set-up run
// behind PgBouncer (@kirimbayar/test-prisma-generate: nothing is downloaded). The suite's vitest globalSetup, and run
// before the typecheck.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generatePrismaClient } from "@kirimbayar/test-prisma-generate";

const schema = join(dirname(fileURLToPath(import.meta.url)), "schema.prisma");

export default function setup() {
  generatePrismaClient(schema);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) setup();
