import { defineProject } from "vitest/config";

export default defineProject({
  // Every PostgreSQL path of kirimbayar, with its default options, behind a real PgBouncer (tests/pgbouncer-server)
  // in transaction and in session mode; and PgBouncer killed mid-flight.
  test: {
    name: "poolers",
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Generates the Prisma client of the Prisma set-up, offline (prisma/generate.mjs).
    globalSetup: ["./prisma/generate.mjs"],
  },
});
