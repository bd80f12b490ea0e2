// A binding built on the wrong object fails at once, with a WebhookConfigurationError that names what it expected,
// what it got and what to do instead, never on the first payment: a TypeORM DataSource given to the Prisma binding
// and a PrismaClient to the TypeORM one, a pg Pool or a PGlite database to either. (A Prisma transaction client and
// a DataSource of an unsupported database are tested in the bindings' own files, which have a database at hand.)
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prismaBinding } from "../src/prisma.js";
import { typeormBinding } from "../src/typeorm.js";
import { WebhookConfigurationError } from "../src/webhooks.js";
import { PrismaClient } from "./prisma/generated/client.js";

// Nothing here connects: every object points at a port nobody listens on.
let pglite: PGlite;
const pool = new pg.Pool({ host: "127.0.0.1", port: 1 });
const dataSource = new DataSource({ type: "postgres", host: "127.0.0.1", port: 1 });
const prisma = new PrismaClient({ adapter: new PrismaPg({ host: "127.0.0.1", port: 1 }) });

beforeAll(async () => {
  pglite = new PGlite();
  await pglite.waitReady;
}, 60_000); // PGlite compiles its WebAssembly first: seconds on a busy machine

afterAll(async () => {
  await pglite?.close();
  await pool.end();
  await prisma.$disconnect();
});

function configurationError(build: () => unknown): WebhookConfigurationError {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookConfigurationError);
    return error as WebhookConfigurationError;
  }
  throw new Error("the binding was built");
}

describe("prismaBinding given the wrong object", () => {
  const expects = "prismaBinding expects a PrismaClient (with $transaction and $queryRawUnsafe); got";
  it.each([
    [
      "a TypeORM DataSource",
      () => dataSource,
      "a TypeORM DataSource. Use typeormBinding(dataSource) from @kirimbayar/core/typeorm.",
    ],
    [
      "a pg Pool",
      () => pool,
      "a pg Pool. Pass it as new PostgresIdempotencyStore({ pool }) from @kirimbayar/core/postgres.",
    ],
    [
      "a PGlite database",
      () => pglite,
      "a PGlite database. Pass it as new PostgresIdempotencyStore({ client: db }) from @kirimbayar/core/postgres.",
    ],
    ["nothing", () => undefined, "undefined."],
  ])("%s", (_, given, got) => {
    expect(configurationError(() => prismaBinding(given() as unknown as PrismaClient)).message).toBe(
      `${expects} ${got}`,
    );
  });
});

describe("typeormBinding given the wrong object", () => {
  const expects = "typeormBinding expects a TypeORM DataSource (with transaction and createQueryRunner); got";
  it.each([
    ["a PrismaClient", () => prisma, "a PrismaClient. Use prismaBinding(prisma) from @kirimbayar/core/prisma."],
    ["a TypeORM EntityManager", () => dataSource.manager, "a TypeORM EntityManager. Pass the DataSource itself"],
    ["a pg Pool", () => pool, "a pg Pool. Pass it as new PostgresIdempotencyStore({ pool })"],
    ["a PGlite database", () => pglite, "a PGlite database. Pass it as new PostgresIdempotencyStore({ client: db })"],
  ])("%s", (_, given, got) => {
    expect(configurationError(() => typeormBinding(given() as unknown as DataSource)).message).toContain(
      `${expects} ${got}`,
    );
  });
});
