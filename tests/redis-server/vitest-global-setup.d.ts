/**
 * Finds (or builds once) redis-server before the tests start.
 *
 * @example
 * // vitest.config.ts
 * defineProject({ test: { globalSetup: ["@kirimbayar/test-redis-server/vitest-global-setup"] } });
 */
export default function resolveRedisServerOnce(): Promise<void>;
