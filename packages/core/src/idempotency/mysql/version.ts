import { KirimbayarError } from "../../errors/base.js";

/** The oldest servers the MySQL store runs on: CHECK constraints enforced, `DATETIME(6)`, recursive named locks. */
export const MYSQL_MINIMUM_VERSIONS = { mysql: "8.0", mariadb: "10.6" } as const;

/**
 * Thrown by the MySQL store's `ensureSchema()` when the server is older than the store supports (MySQL before 8.0,
 * MariaDB before 10.6), or its version cannot be read. Names the version found and the version needed.
 *
 * @example
 * try { await store.ensureSchema() } catch (e) { if (e instanceof MysqlServerVersionError) console.error(e.found, e.needed) }
 */
export class MysqlServerVersionError extends KirimbayarError {
  /** What `SELECT VERSION()` answered, e.g. `5.7.44-log`. */
  readonly found: string;
  /** What the store needs, e.g. `MySQL 8.0 or later`. */
  readonly needed: string;

  constructor(found: string, needed: string) {
    super(`MysqlIdempotencyStore needs ${needed}; the server is ${found}`, { code: "mysql_server_version" });
    this.found = found;
    this.needed = needed;
  }
}

/** A server's product and version, as read from `VERSION()`. */
export interface MysqlServerVersion {
  readonly product: "mysql" | "mariadb";
  readonly major: number;
  readonly minor: number;
}

/**
 * Reads `SELECT VERSION()`'s answer: `8.0.36`, `8.4.2-log`, `10.11.19-MariaDB-0+deb12u1`, or a MariaDB behind the old
 * replication prefix (`5.5.5-10.6.18-MariaDB`). `undefined` when it is none of these.
 */
export function parseMysqlVersion(version: string): MysqlServerVersion | undefined {
  const mariadb = /mariadb/i.test(version);
  const text = mariadb ? version.replace(/^5\.5\.5-/, "") : version;
  const match = /^(\d+)\.(\d+)/.exec(text);
  if (!match) return undefined;
  return { product: mariadb ? "mariadb" : "mysql", major: Number(match[1]), minor: Number(match[2]) };
}

/** Throws {@link MysqlServerVersionError} unless `version` (from `SELECT VERSION()`) is MySQL 8.0+ or MariaDB 10.6+. */
export function assertSupportedMysqlVersion(version: string): void {
  const parsed = parseMysqlVersion(version);
  const needed = `MySQL ${MYSQL_MINIMUM_VERSIONS.mysql} or later, or MariaDB ${MYSQL_MINIMUM_VERSIONS.mariadb} or later`;
  if (parsed === undefined) throw new MysqlServerVersionError(JSON.stringify(version), needed);
  const [major, minor] = (parsed.product === "mariadb" ? MYSQL_MINIMUM_VERSIONS.mariadb : MYSQL_MINIMUM_VERSIONS.mysql)
    .split(".")
    .map(Number) as [number, number];
  if (parsed.major > major || (parsed.major === major && parsed.minor >= minor)) return;
  const product = parsed.product === "mariadb" ? "MariaDB" : "MySQL";
  throw new MysqlServerVersionError(
    `${product} ${version}`,
    `${product} ${parsed.product === "mariadb" ? MYSQL_MINIMUM_VERSIONS.mariadb : MYSQL_MINIMUM_VERSIONS.mysql} or later`,
  );
}
