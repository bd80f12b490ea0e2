import { defineProject } from "vitest/config";

// The same tests against Express 4 (the peer range covers ^4.17 and ^5): `express` imported by the tests and by the
// adapter's source resolves to the `express4` alias (npm:express@4) instead.
export default defineProject({
  test: {
    name: "express4",
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 20_000,
    provide: { expressMajor: 4 },
  },
  resolve: { alias: [{ find: /^express(\/.*)?$/, replacement: "express4$1" }] },
});
