import type { DataSource, EntityManager } from "typeorm";
import { WebhookConfigurationError } from "../../../webhooks/errors.js";
import type { SqlBinding, SqlResult } from "../../sql/binding.js";
import { wrongObject } from "../wrong-object.js";

/** Options of {@link typeormBinding}. */
export interface TypeormBindingOptions {
  /** Isolation level of the delivery's transaction (default: the DataSource's `isolationLevel`, else the database's). */
  isolationLevel?: "READ UNCOMMITTED" | "READ COMMITTED" | "REPEATABLE READ" | "SERIALIZABLE";
}

/**
 * What {@link typeormBinding} takes: a TypeORM `DataSource` (0.3 or 1.x), checked when the binding is built. Typed
 * by its shape, so that TypeORM stays an optional peer whose types this package never imports.
 */
export interface TypeormDataSourceLike {
  readonly manager: unknown;
  readonly options: { readonly type: string };
  transaction(...args: never[]): Promise<unknown>;
  createQueryRunner(...args: never[]): unknown;
  query(...args: never[]): Promise<unknown>;
}

/** The `EntityManager` of a TypeORM `DataSource`: what the handlers of a transactional delivery get. */
export type TypeormEntityManagerOf<D extends TypeormDataSourceLike> = D["manager"];

// The drivers whose transaction's connection the binding can close when handlers run out of time.
const SUPPORTED = ["postgres", "mysql", "mariadb"];

/** What the binding uses of a TypeORM QueryRunner beyond its public interface (TypeORM 0.3 and 1.x). */
interface RunnerInternals {
  query(sql: string, params: unknown[], structured: true): Promise<{ records?: unknown; affected?: number | null }>;
  release(): Promise<void>;
  isReleased: boolean;
  /** PostgreSQL: gives the `pg` PoolClient back to the pool with an error, which makes the pool close it. */
  releasePostgresConnection?: (error?: Error) => Promise<void>;
  /** The driver's connection the runner holds: `pg`'s PoolClient, or `mysql2`'s PoolConnection. */
  databaseConnection?: { destroy?: () => void; query?: unknown };
}

/**
 * The store's binding to TypeORM (`@kirimbayar/core/typeorm`): the store's statements run through your
 * `DataSource`'s own pool (with the database's native placeholders), and a transactional delivery runs in
 * `dataSource.transaction(...)`, whose `EntityManager` the handlers get as `ctx.transaction`. No second pool.
 *
 * Handlers must write through `ctx.transaction` (`ctx.transaction.getRepository(Order)`, `ctx.transaction.save(...)`),
 * not through the `DataSource` or an injected repository: those run on another connection, outside the delivery's
 * transaction, and commit even when the delivery is rolled back. A handler past its time limit cannot commit
 * anything: the binding closes the transaction's connection (PostgreSQL rolls back, the pool replaces it) and TypeORM
 * refuses every later statement on that `EntityManager`. On PostgreSQL the store's transactional claim goes straight to
 * the transaction's `pg` connection as a named statement, planned once per connection (TypeORM's runner would send
 * it unnamed, planned on every delivery), so TypeORM's query logger does not show it.
 *
 * @example
 * import { PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
 * import { typeormBinding } from "@kirimbayar/core/typeorm";
 * const store = new PostgresIdempotencyStore({ binding: typeormBinding(dataSource) });
 * createWebhookReceiver({ source: "qris", verify, idempotency: { store, transactional: true } })
 *   .on("payment.success", async (event, ctx) => {
 *     await ctx.transaction.getRepository(Order).update({ id: orderId }, { status: "paid" });
 *   });
 */
export function typeormBinding<D extends TypeormDataSourceLike>(
  dataSource: D,
  options: TypeormBindingOptions = {},
): SqlBinding<TypeormEntityManagerOf<D>> {
  assertDataSource(dataSource);
  // The manager type is the DataSource's own, checked at the call; inside, TypeORM's types (dev only) apply.
  return bindTypeorm(dataSource as unknown as DataSource, options) as unknown as SqlBinding<TypeormEntityManagerOf<D>>;
}

function bindTypeorm(dataSource: DataSource, options: TypeormBindingOptions): SqlBinding<EntityManager> {
  const isolation = options.isolationLevel;
  const type = dataSource.options.type;
  return {
    library: "typeorm",
    dialect: type === "postgres" ? "postgres" : "mysql",
    dialectSource: `type "${type}"`,
    transaction: (work) =>
      isolation === undefined ? dataSource.transaction(work) : dataSource.transaction(isolation, work),
    query: async (sql, params, manager, statementName) => {
      if (manager !== undefined) {
        const runner = runnerOf(manager);
        if (statementName !== undefined && type === "postgres") {
          const named = namedOnPg(runner, statementName, sql, params);
          if (named !== undefined) return named;
        }
        return structured(runner, sql, params);
      }
      // A runner of its own, as `dataSource.query` does, for the structured result (rows and affected count).
      const runner = dataSource.createQueryRunner() as unknown as RunnerInternals;
      try {
        return await structured(runner, sql, params);
      } finally {
        await runner.release();
      }
    },
    abandon: (manager) => abandonRunner(runnerOf(manager)),
  };
}

// Closes the transaction's connection, so that nothing the handlers send through `manager` later can commit: the
// database rolls the transaction back when its connection closes, and TypeORM refuses any later statement on a
// released runner (its own ROLLBACK and release then do nothing).
function abandonRunner(runner: RunnerInternals): void {
  const abandoned = new Error("abandoned by kirimbayar: the webhook handlers ran out of time");
  if (typeof runner.releasePostgresConnection === "function") {
    // pg-pool ends a client given back with an error (a statement in flight fails at once) and opens a new one.
    runner.releasePostgresConnection(abandoned).catch(() => {});
    return;
  }
  // mysql2: destroy() ends the connection and takes it out of the pool (TypeORM's release() then skips it). A
  // statement already sent may still finish, but the server rolls the transaction back once it sees the connection
  // gone, and nothing can be sent after it.
  runner.isReleased = true;
  runner.databaseConnection?.destroy?.();
}

/** The `pg` connection a PostgreSQL runner holds: it takes a named statement as a query config. */
interface PgNamedQueryable {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows?: unknown; rowCount?: unknown }>;
}

// A statement sent under its name straight on the transaction's `pg` connection, parsed and planned once per
// connection, as TypeORM would not (its runner sends every statement unnamed, planned on each call). `undefined`
// when the runner holds no such connection (released: its own query then refuses, as TypeORM would).
function namedOnPg(
  runner: RunnerInternals,
  name: string,
  sql: string,
  params: readonly unknown[],
): Promise<SqlResult> | undefined {
  const connection = runner.databaseConnection as Partial<PgNamedQueryable> | undefined;
  if (runner.isReleased || typeof connection?.query !== "function") return undefined;
  return connection.query({ name, text: sql, values: [...params] }).then((result) => ({
    rows: Array.isArray(result.rows) ? (result.rows as Record<string, unknown>[]) : [],
    affectedRows: typeof result.rowCount === "number" ? result.rowCount : undefined,
  }));
}

async function structured(runner: RunnerInternals, sql: string, params: readonly unknown[]): Promise<SqlResult> {
  const result = await runner.query(sql, [...params], true);
  const rows = Array.isArray(result.records) ? (result.records as Record<string, unknown>[]) : [];
  return { rows, affectedRows: typeof result.affected === "number" ? result.affected : undefined };
}

function runnerOf(manager: EntityManager): RunnerInternals {
  const runner = manager.queryRunner as unknown as RunnerInternals | undefined;
  if (runner === undefined) {
    throw new WebhookConfigurationError("typeormBinding: this EntityManager is not a transaction's (no query runner)");
  }
  return runner;
}

function assertDataSource(dataSource: unknown): void {
  const candidate = dataSource as Partial<Record<"transaction" | "createQueryRunner" | "query", unknown>> | null;
  if (
    typeof candidate?.transaction !== "function" ||
    typeof candidate.createQueryRunner !== "function" ||
    typeof candidate.query !== "function"
  ) {
    throw wrongObject("typeormBinding", "a TypeORM DataSource (with transaction and createQueryRunner)", dataSource);
  }
  const type = (dataSource as { options?: { type?: unknown } }).options?.type;
  if (typeof type !== "string" || !SUPPORTED.includes(type)) {
    throw new WebhookConfigurationError(
      `typeormBinding expects a DataSource of type ${SUPPORTED.join(", ")}; got type ${String(type)}`,
    );
  }
}
