import { defineProject } from "vitest/config";

// The conformance table once more through the Express adapter on Express 4: `express`, in the tests and in the
// adapter's built code (a workspace package, which vitest transforms like the tests), resolves to the `express4`
// alias (npm:express@4). conformance.test.ts checks that the adapter's router really comes from that copy.
export default defineProject({
  test: {
    name: "conformance-express4",
    include: ["test/conformance.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 30_000,
    provide: { conformanceAdapters: ["express"], expressMajor: 4 },
  },
  resolve: { alias: [{ find: /^express(\/.*)?$/, replacement: "express4$1" }] },
});
