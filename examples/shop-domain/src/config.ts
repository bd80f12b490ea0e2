import { randomBytes } from "node:crypto";
import { z } from "zod";

const url = (name: string) =>
  z.url({ protocol: /^https?$/, error: `${name} must be an http(s) URL, e.g. https://api.example.co.id` });

const integerFrom = (name: string) =>
  z.coerce.number({ error: `${name} must be a number` }).int(`${name} must be a whole number`);

const secret = (name: string, minLength: number) =>
  z
    .string({ error: `${name} is required` })
    .min(minLength, `${name} must be at least ${minLength} characters long`)
    .refine((value) => value.trim() === value, `${name} has leading or trailing whitespace (a copy-paste accident?)`);

/**
 * The environment variables the example shops read, validated at start. Secrets are only ever checked for shape:
 * no error message repeats a value.
 */
export const shopEnvSchema = z.object({
  PORT: integerFrom("PORT").min(0).max(65_535).default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  /** Where the payment services reach this shop (callback and webhook URLs are built on it). */
  PUBLIC_BASE_URL: url("PUBLIC_BASE_URL").optional(),
  KIRIMBAYAR_PAYMENT_API_KEY: secret("KIRIMBAYAR_PAYMENT_API_KEY", 1),
  KIRIMBAYAR_PAYMENT_BASE_URL: url("KIRIMBAYAR_PAYMENT_BASE_URL"),
  /** The QR payment service, when its key or address differ from the payment gateway's. */
  KIRIMBAYAR_QRIS_API_KEY: secret("KIRIMBAYAR_QRIS_API_KEY", 1).optional(),
  KIRIMBAYAR_QRIS_BASE_URL: url("KIRIMBAYAR_QRIS_BASE_URL").optional(),
  /** The QR configuration (`qris_id`) generated codes are issued from. */
  KIRIMBAYAR_QRIS_ID: integerFrom("KIRIMBAYAR_QRIS_ID").positive("KIRIMBAYAR_QRIS_ID must be positive"),
  /** Key given to the payment gateway with `callback_url`; its callbacks are signed with it. */
  KIRIMBAYAR_CALLBACK_API_KEY: secret("KIRIMBAYAR_CALLBACK_API_KEY", 16),
  KIRIMBAYAR_SHIPPING_API_KEY: secret("KIRIMBAYAR_SHIPPING_API_KEY", 1),
  KIRIMBAYAR_SHIPPING_BASE_URL: url("KIRIMBAYAR_SHIPPING_BASE_URL"),
  /** Base URL of the order service (its paths start with `/order/api/v1`); when set, the shop registers its order
   * webhook at start. */
  KIRIMBAYAR_ORDERS_BASE_URL: url("KIRIMBAYAR_ORDERS_BASE_URL").optional(),
  KIRIMBAYAR_ORDERS_API_KEY: secret("KIRIMBAYAR_ORDERS_API_KEY", 1).optional(),
  /** Token the QRIS and order webhook URLs carry (`?token=`), since those deliveries are not signed. */
  KIRIMBAYAR_WEBHOOK_SECRET: secret("KIRIMBAYAR_WEBHOOK_SECRET", 16),
  /** Destination id of the warehouse the parcels leave from. */
  SHOP_ORIGIN_ID: integerFrom("SHOP_ORIGIN_ID").positive("SHOP_ORIGIN_ID must be positive"),
  /** Couriers quoted when a request names none, joined with `:`. */
  SHOP_COURIERS: z
    .string()
    .regex(/^[a-z0-9&]+(:[a-z0-9&]+)*$/i, "SHOP_COURIERS must look like jne:sicepat:pos")
    .default("jne:sicepat:pos:tiki"),
  /**
   * How often (ms) the shop asks the provider about payments still pending, to find those whose webhooks all failed
   * (the provider retries for about 21 minutes only); `0` turns it off.
   */
  SHOP_RECONCILE_EVERY_MS: integerFrom("SHOP_RECONCILE_EVERY_MS").min(0).default(60_000),
  /**
   * Where orders live: `memory` (the default) or `postgres`, where the orders and the webhooks' idempotency records
   * share one database and each payment webhook updates its order in the same transaction as its record. PostgreSQL
   * is the server of `DATABASE_URL`, or without it an in-process PGlite database.
   */
  SHOP_DATABASE: z.enum(["memory", "postgres"], { error: "SHOP_DATABASE must be memory or postgres" }).optional(),
  /**
   * A PostgreSQL server for SHOP_DATABASE=postgres (implies it); the NestJS shop (TypeORM) also takes a MySQL or
   * MariaDB server (`mysql://`, `mariadb://`).
   */
  DATABASE_URL: z
    .url({
      protocol: /^(postgres(ql)?|mysql|mariadb)$/,
      error: "DATABASE_URL must be a postgres://, postgresql://, mysql:// or mariadb:// URL",
    })
    .optional(),
  /**
   * The password of the webhook console at `/kirimbayar/console` (user `operator`); without it a random one is made
   * at start and printed.
   */
  KIRIMBAYAR_CONSOLE_PASSWORD: secret("KIRIMBAYAR_CONSOLE_PASSWORD", 12).optional(),
  /**
   * Redis for the webhook idempotency store; without it, an in-memory store (one process only). With
   * SHOP_DATABASE=postgres the orders stay in PostgreSQL and the records go to Redis (handlers not transactional).
   */
  REDIS_URL: z.url({ protocol: /^rediss?$/, error: "REDIS_URL must be a redis:// or rediss:// URL" }).optional(),
  /**
   * On SIGTERM, how long (ms) the webhook deliveries in flight may run on once the shop stops taking new ones; those
   * still running then have their claims released, so another instance applies the provider's retry at once.
   */
  SHOP_SHUTDOWN_GRACE_MS: integerFrom("SHOP_SHUTDOWN_GRACE_MS").min(0).max(600_000).default(10_000),
  /**
   * On SIGTERM, how long (ms) the shop keeps serving after `/readyz` turned 503, before it stops taking requests:
   * the load balancer's health-check interval times its fall count. 0 behind a balancer that checks no readiness.
   */
  SHOP_SHUTDOWN_UNREADY_DELAY_MS: integerFrom("SHOP_SHUTDOWN_UNREADY_DELAY_MS").min(0).max(600_000).default(0),
  /**
   * `pg-boss`: the webhook routes answer 200 once each verified event is queued in the shop's PostgreSQL (the durable
   * inbox of `@kirimbayar/inbox`), and a worker in the same process applies them; needs SHOP_DATABASE=postgres on a
   * server (DATABASE_URL). Unset: the handlers run in the request.
   */
  SHOP_INBOX: z.enum(["pg-boss"], { error: "SHOP_INBOX must be pg-boss" }).optional(),
  /**
   * Deploy drills only: each webhook handler first waits a random time up to this many ms (it stops at the shutdown's
   * grace period), so that a rolling-deploy drill has deliveries in flight when an instance is stopped. Default 0.
   */
  SHOP_WEBHOOK_DELAY_MS: integerFrom("SHOP_WEBHOOK_DELAY_MS").min(0).max(600_000).default(0),
});

/** The shop's configuration, parsed from the environment. */
export interface ShopConfig {
  port: number;
  host: string;
  /** Set by `PUBLIC_BASE_URL`; otherwise the address the server ends up listening on is used. */
  publicBaseUrl: string | undefined;
  payment: { apiKey: string; baseUrl: string; callbackApiKey: string };
  qris: { apiKey: string; baseUrl: string; qrisId: number };
  shipping: { apiKey: string; baseUrl: string; originId: number; couriers: string[] };
  orders: { apiKey: string; baseUrl: string } | undefined;
  webhookSecret: string;
  redisUrl: string | undefined;
  /** `"postgres"`: orders and idempotency records in PostgreSQL (`databaseUrl`, or PGlite without it). */
  database: "memory" | "postgres";
  databaseUrl: string | undefined;
  /** Interval of the payment reconciliation in ms; `0` when it is off. */
  reconcileEveryMs: number;
  /** The webhook console's password; `generated` when it was made at start (print it, it is nowhere else). */
  console: { password: string; generated: boolean };
  /** The graceful shutdown on SIGTERM: the grace period of the deliveries in flight, and the not-ready delay (ms). */
  shutdown: { graceMs: number; unreadyDelayMs: number };
  /** Deploy drills only: the longest random wait (ms) before each webhook handler; 0 for none. */
  webhookDelayMs: number;
  /** `"pg-boss"`: webhooks queued in the durable inbox and applied by a worker in the process. */
  inbox: "pg-boss" | undefined;
}

/**
 * Thrown at start when the environment is incomplete or malformed. Lists every problem at once, by variable name,
 * and never repeats a value (some are secrets).
 *
 * @example
 * try { loadShopConfig(process.env) } catch (e) { if (e instanceof ShopConfigError) { console.error(e.message); process.exit(1) } }
 */
export class ShopConfigError extends Error {
  /** One entry per problem: the variable and what is wrong with it. */
  readonly problems: { variable: string; message: string }[];

  constructor(problems: { variable: string; message: string }[]) {
    super(
      `The shop cannot start: ${problems.length} environment variable problem(s):\n${problems
        .map((p) => `  - ${p.variable}: ${p.message}`)
        .join("\n")}`,
    );
    this.name = "ShopConfigError";
    this.problems = problems;
  }
}

/**
 * Reads and validates the shop's configuration from environment variables.
 *
 * @throws {ShopConfigError} listing every missing or malformed variable.
 * @example
 * const config = loadShopConfig(process.env);
 * console.log(`listening on ${config.port}`);
 */
export function loadShopConfig(env: Record<string, string | undefined>): ShopConfig {
  // Empty strings (`FOO=` in a .env file) mean "not set", so optional variables stay optional.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = shopEnvSchema.safeParse(present);
  if (!parsed.success) {
    throw new ShopConfigError(
      parsed.error.issues.map((issue) => {
        const variable = String(issue.path[0] ?? "(environment)");
        return { variable, message: variable in present ? issue.message : "is required" };
      }),
    );
  }
  const e = parsed.data;
  if ((e.KIRIMBAYAR_ORDERS_BASE_URL === undefined) !== (e.KIRIMBAYAR_ORDERS_API_KEY === undefined)) {
    throw new ShopConfigError([
      {
        variable:
          e.KIRIMBAYAR_ORDERS_BASE_URL === undefined ? "KIRIMBAYAR_ORDERS_BASE_URL" : "KIRIMBAYAR_ORDERS_API_KEY",
        message: "set both KIRIMBAYAR_ORDERS_BASE_URL and KIRIMBAYAR_ORDERS_API_KEY, or neither",
      },
    ]);
  }
  if (e.SHOP_INBOX !== undefined && !/^postgres(ql)?:/.test(e.DATABASE_URL ?? "")) {
    throw new ShopConfigError([
      {
        variable: "SHOP_INBOX",
        message: "the pg-boss inbox lives in a PostgreSQL server: set DATABASE_URL to a postgres:// URL",
      },
    ]);
  }
  return {
    port: e.PORT,
    host: e.HOST,
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/+$/, ""),
    payment: {
      apiKey: e.KIRIMBAYAR_PAYMENT_API_KEY,
      baseUrl: e.KIRIMBAYAR_PAYMENT_BASE_URL,
      callbackApiKey: e.KIRIMBAYAR_CALLBACK_API_KEY,
    },
    qris: {
      apiKey: e.KIRIMBAYAR_QRIS_API_KEY ?? e.KIRIMBAYAR_PAYMENT_API_KEY,
      baseUrl: e.KIRIMBAYAR_QRIS_BASE_URL ?? e.KIRIMBAYAR_PAYMENT_BASE_URL,
      qrisId: e.KIRIMBAYAR_QRIS_ID,
    },
    shipping: {
      apiKey: e.KIRIMBAYAR_SHIPPING_API_KEY,
      baseUrl: e.KIRIMBAYAR_SHIPPING_BASE_URL,
      originId: e.SHOP_ORIGIN_ID,
      couriers: e.SHOP_COURIERS.toLowerCase().split(":"),
    },
    orders:
      e.KIRIMBAYAR_ORDERS_BASE_URL !== undefined && e.KIRIMBAYAR_ORDERS_API_KEY !== undefined
        ? { apiKey: e.KIRIMBAYAR_ORDERS_API_KEY, baseUrl: e.KIRIMBAYAR_ORDERS_BASE_URL }
        : undefined,
    webhookSecret: e.KIRIMBAYAR_WEBHOOK_SECRET,
    redisUrl: e.REDIS_URL,
    database: e.SHOP_DATABASE ?? (e.DATABASE_URL === undefined ? "memory" : "postgres"),
    databaseUrl: e.DATABASE_URL,
    reconcileEveryMs: e.SHOP_RECONCILE_EVERY_MS,
    console:
      e.KIRIMBAYAR_CONSOLE_PASSWORD === undefined
        ? { password: randomBytes(12).toString("base64url"), generated: true }
        : { password: e.KIRIMBAYAR_CONSOLE_PASSWORD, generated: false },
    shutdown: { graceMs: e.SHOP_SHUTDOWN_GRACE_MS, unreadyDelayMs: e.SHOP_SHUTDOWN_UNREADY_DELAY_MS },
    webhookDelayMs: e.SHOP_WEBHOOK_DELAY_MS,
    inbox: e.SHOP_INBOX,
  };
}
