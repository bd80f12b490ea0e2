// The pg-boss 10 engine of the inbox, in small modules: the inbox (enqueue, dead letters, counts), the worker's
// loop (fetch, run, settle), the hold a worker keeps on its events (heartbeat and reaper), the statements, and the
// retry of calls to the database.
export { createPgBossInbox } from "./inbox.js";
export type { PgBossDb, PgBossInbox, PgBossInboxOptions, PgBossJob, PgBossLike } from "./types.js";
