// A vitest `globalSetup`: resolves the redis-server binary once before any test file runs. Global setup has no time
// limit, unlike a test file's beforeAll, so a first-use build by redis-memory-server (minutes) happens here and the
// test files then find the cached binary at once.
import { resolveRedisServerBinary } from "./index.js";

/**
 * Finds (or builds once) redis-server before the tests start.
 *
 * @example
 * // vitest.config.ts
 * defineProject({ test: { globalSetup: ["@kirimbayar/test-redis-server/vitest-global-setup"] } });
 */
export default async function resolveRedisServerOnce() {
  await resolveRedisServerBinary();
}
