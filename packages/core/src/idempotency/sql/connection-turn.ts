// One connection (a `pg` Client, PGlite, a `mysql2` Connection) runs one statement or transaction at a time for
// everything kirimbayar sends through it: the idempotency store's statements and transactions, and the delivery
// journal's batches and reads. A statement sent while another delivery's transaction is open on that connection
// would join the transaction and commit or roll back with it (a journal batch rolled back with a failed handler's
// writes). So the turn belongs to the connection object, shared by every store and journal given it, not to each.
//
// A transactional delivery's own statements (its claim, its handlers', its journal entry through
// `IdempotencyTransaction.sql`) run inside the turn its transaction holds, and never take another: that would wait for
// itself.

const turns = new WeakMap<object, Promise<unknown>>();

/**
 * Resolves when `connection` is free of every other turn taken on it; call the returned function to free it again
 * (once the statement or transaction ended, also when it failed).
 *
 * @example
 * const free = await takeConnectionTurn(client);
 * try { await client.query("INSERT ..."); } finally { free(); }
 */
export async function takeConnectionTurn(connection: object): Promise<() => void> {
  let free!: () => void;
  const mine = new Promise<void>((resolve) => {
    free = resolve;
  });
  const previous = turns.get(connection);
  turns.set(connection, previous === undefined ? mine : previous.then(() => mine));
  if (previous !== undefined) await previous;
  return free;
}

/** Runs `statement` in its own turn on `connection`, freeing the turn when it settles. */
export async function inConnectionTurn<T>(connection: object, statement: () => PromiseLike<T>): Promise<T> {
  const free = await takeConnectionTurn(connection);
  try {
    return await statement();
  } finally {
    free();
  }
}
