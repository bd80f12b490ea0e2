// `@kirimbayar/inbox/pg-boss`: the inbox engine on pg-boss 10 (PostgreSQL).
export {
  createPgBossInbox,
  type PgBossDb,
  type PgBossInbox,
  type PgBossInboxOptions,
  type PgBossJob,
  type PgBossLike,
} from "./engines/pg-boss.js";
