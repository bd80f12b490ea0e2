// The pg-boss 10 engine: see ./pg-boss/ (kept as a file so that `./engines/pg-boss.js` imports stay valid).
export {
  createPgBossInbox,
  type PgBossDb,
  type PgBossInbox,
  type PgBossInboxOptions,
  type PgBossJob,
  type PgBossLike,
} from "./pg-boss/index.js";
