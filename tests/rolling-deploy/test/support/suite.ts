// The rolling-deploy test of one framework: the services once per file, then the campaign with the graceful shutdown
// (and, to measure what it is worth, without it). Small in `pnpm test`; full size with KIRIMBAYAR_CHAOS=full.
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import { startRedisServer, type TestRedisServer } from "@kirimbayar/test-redis-server";
import IORedis from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  describeResult,
  type RollingDeployOptions,
  type RollingDeployResult,
  runRollingDeploy,
  type Services,
} from "./campaign.js";

export const FULL = process.env.KIRIMBAYAR_CHAOS === "full";
/** KIRIMBAYAR_ROLLING_COMPARE=1: every file also runs its small campaign without the recipe (the guide's table). */
const COMPARE = process.env.KIRIMBAYAR_ROLLING_COMPARE === "1";

let runs = 0;

/** The settings of a campaign, small or full size. */
export function campaignSize(): Pick<
  RollingDeployOptions,
  "events" | "payEveryMs" | "duplicateShare" | "stopAt" | "graceMs" | "handlerDelayMs"
> {
  return FULL
    ? { events: 400, payEveryMs: 60, duplicateShare: 0.3, stopAt: 0.4, graceMs: 400, handlerDelayMs: 500 }
    : { events: 40, payEveryMs: 40, duplicateShare: 0.3, stopAt: 0.4, graceMs: 400, handlerDelayMs: 800 };
}

/**
 * Starts the file's services (PostgreSQL, and Redis when the records are there) and declares its runs: with the
 * graceful shutdown, whose goals are asserted, and without it, whose damage is measured.
 */
export function rollingDeployTests(
  setup: Pick<RollingDeployOptions, "framework" | "loadBalancer" | "records" | "inbox">,
  options: { withoutRecipe: boolean } = { withoutRecipe: FULL || COMPARE },
): void {
  let postgres: TestPostgresServer;
  let redisServer: TestRedisServer | undefined;
  let redis: IORedis | undefined;
  let services: Services;

  beforeAll(async () => {
    [postgres, redisServer] = await Promise.all([
      startPostgresServer({ args: ["-c", "max_connections=200"] }),
      setup.records === "redis" ? startRedisServer() : Promise.resolve(undefined),
    ]);
    if (redisServer !== undefined) {
      redis = new IORedis(redisServer.port, "127.0.0.1", { lazyConnect: true });
      await redis.connect();
    }
    services = {
      postgresUrl: postgres.url,
      ...(redisServer === undefined ? {} : { redisUrl: redisServer.url }),
      ...(redis === undefined ? {} : { redis }),
    };
  });

  afterAll(async () => {
    redis?.disconnect();
    await Promise.all([postgres?.destroy(), redisServer?.stop()]);
  });

  const run = (recipe: boolean): Promise<RollingDeployResult> =>
    runRollingDeploy(services, {
      ...setup,
      ...campaignSize(),
      // HAProxy checks /readyz every 250 ms and takes an instance out at its second failed check.
      unreadyDelayMs: setup.loadBalancer === "haproxy" ? 800 : 0,
      recipe,
      run: ++runs,
    });

  it("with the graceful shutdown: 0 lost, 0 double, no 200 without its effect, no key left in progress", async () => {
    const result = await run(true);
    console.log(describeResult(result));
    expect(result).toMatchObject({ lost: 0, double: 0, okWithoutEffect: 0, inProgressAfter: 0 });
    expect(result.openTransactionsAfter).toBe(0);
    expect(result.activeInboxJobsAfter).toBe(0);
    // The stopped instance shut down as the recipe says, and said what it did.
    expect(result.shutdownReport).toBeDefined();
    expect(result.shutdownReport?.failedSteps).toEqual([]);
  });

  if (options.withoutRecipe) {
    it("without it (the process ends on SIGTERM): what the stop costs, measured", async () => {
      const result = await run(false);
      console.log(describeResult(result));
      expect(result.double).toBe(0);
      if (setup.records === "redis") {
        // The claims the instance held stay in progress for their whole lease: what the recipe releases.
        expect(result.inProgressAfter).toBeGreaterThan(0);
      } else {
        // In the handlers' own transaction, PostgreSQL rolls back what the dead process held: nothing is lost
        // even by a hard stop; what it costs is in the figures printed above.
        expect(result).toMatchObject({ lost: 0, okWithoutEffect: 0, inProgressAfter: 0, openTransactionsAfter: 0 });
      }
    });
  }
}
