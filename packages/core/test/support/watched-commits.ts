// A transactional store whose COMMITs are watched: a test runs statements in each delivery's transaction just before
// it commits (what is visible inside, and outside, at that moment), or loses the COMMIT as a dropped connection would.
import type {
  IdempotencyStore,
  IdempotencyTransaction,
  TransactionalIdempotencyStore,
  TransactionSql,
} from "../../src/webhooks.js";

export type WatchableStore<Tx> = IdempotencyStore &
  TransactionalIdempotencyStore<Tx> & { ensureSchema(): Promise<void> };

/**
 * `store` with `beforeCommit` run through each delivery's transaction just before its COMMIT; `loseCommit` makes that
 * COMMIT fail instead (the transaction is rolled back), as a connection lost at that moment would.
 */
export function watchedCommits<Tx>(
  store: WatchableStore<Tx>,
  beforeCommit: (sql: TransactionSql) => Promise<void>,
  loseCommit = false,
): WatchableStore<Tx> {
  return {
    transactionalStage: store.transactionalStage,
    ...(store.dialect === undefined ? {} : { dialect: store.dialect }),
    claim: (key, owner, leaseMs) => store.claim(key, owner, leaseMs),
    complete: (key, owner, retentionMs) => store.complete(key, owner, retentionMs),
    release: (key, owner, retentionMs) => store.release(key, owner, retentionMs),
    ensureSchema: () => store.ensureSchema(),
    begin: async (): Promise<IdempotencyTransaction<Tx>> => {
      const transaction = await store.begin();
      return {
        handle: transaction.handle,
        ...(transaction.sql === undefined ? {} : { sql: transaction.sql }),
        claim: (key, retentionMs) => transaction.claim(key, retentionMs),
        rollback: () => transaction.rollback(),
        async commit() {
          await beforeCommit(transaction.sql as TransactionSql);
          if (!loseCommit) return transaction.commit();
          await transaction.rollback();
          throw new Error("the connection was lost during COMMIT");
        },
      };
    },
  };
}
