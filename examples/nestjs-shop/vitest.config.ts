import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "nestjs-shop",
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The testing recipe's database (test/recipe): TEST_DATABASE_URL, or a throw-away PostgreSQL server.
    globalSetup: ["./test/recipe-database.global.ts"],
  },
});
