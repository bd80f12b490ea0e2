// The SQL delivery journal of the transactional contract, over a driver pool of its own: never the connection (nor
// the library) the idempotency store runs on, as in the app of issue 38 (`MysqlDeliveryJournal({ pool })` beside a
// TypeORM-bound store).
import mysql from "mysql2/promise";
import pg from "pg";
import { MysqlDeliveryJournal } from "../../src/mysql.js";
import { PostgresDeliveryJournal } from "../../src/postgres.js";
import type { ContractJournal } from "./transactional-contract.js";

/** `PostgresDeliveryJournal` on `table` (its schema ensured) over a `pg` pool of its own, ended with the journal. */
export async function postgresJournalOnOwnPool(config: pg.PoolConfig, table: string): Promise<ContractJournal> {
  const pool = new pg.Pool({ max: 2, ...config });
  pool.on("error", () => {});
  const journal = new PostgresDeliveryJournal({ pool, table });
  await journal.ensureSchema();
  return endingWith(journal, () => pool.end());
}

/** `MysqlDeliveryJournal` on `table` (its schema ensured) over a `mysql2` pool of its own, ended with the journal. */
export async function mysqlJournalOnOwnPool(config: mysql.PoolOptions, table: string): Promise<ContractJournal> {
  const pool = mysql.createPool({ connectionLimit: 2, ...config });
  const journal = new MysqlDeliveryJournal({ pool, table });
  await journal.ensureSchema();
  return endingWith(journal, () => pool.end());
}

function endingWith<J extends ContractJournal>(journal: J, end: () => Promise<void>): J {
  const close = journal.close.bind(journal);
  journal.close = async () => {
    await close();
    await end();
  };
  return journal;
}
