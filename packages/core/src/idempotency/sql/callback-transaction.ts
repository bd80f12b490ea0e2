import type { SqlBinding } from "./binding.js";

/**
 * One open transaction of a library that runs transactions through a callback (`$transaction(fn)`,
 * `transaction(fn)`), held open from outside: the callback waits until {@link HeldTransaction.end} says how to end.
 */
export interface HeldTransaction<Tx> {
  /** The library's transaction object, as the callback received it. */
  readonly tx: Tx;
  /**
   * Ends the transaction: `true` lets the callback return (the library commits), `false` makes it throw (the library
   * rolls back). Resolves once the library has finished; rejects when a commit failed.
   */
  end(commit: boolean): Promise<void>;
}

/** What the callback throws to make the library roll back; never seen outside. */
class RollbackRequested extends Error {
  constructor() {
    super("rolled back by kirimbayar: the delivery did not complete");
    this.name = "RollbackRequested";
  }
}

/**
 * Opens a transaction through `binding.transaction(callback)` and holds it open: resolves with the transaction object
 * as soon as the callback receives it, and the callback then waits for `end()`. Rejects when the library fails to
 * open one (no connection, the database away).
 */
export function holdTransaction<Tx>(binding: SqlBinding<Tx>): Promise<HeldTransaction<Tx>> {
  return new Promise<HeldTransaction<Tx>>((resolveOpened, rejectOpened) => {
    let opened = false;
    let finish!: (commit: boolean) => void;
    const decision = new Promise<boolean>((resolve) => {
      finish = resolve;
    });
    const rollback = new RollbackRequested();
    let running: Promise<unknown>;
    try {
      running = Promise.resolve(
        binding.transaction(async (tx) => {
          opened = true;
          resolveOpened({ tx, end });
          if (!(await decision)) throw rollback;
        }),
      );
    } catch (error) {
      rejectOpened(error);
      return;
    }
    // Ended without our decision: the library could not open the transaction (or ended it at once).
    running.then(
      () => opened || rejectOpened(new Error(`${binding.library} ended the transaction before it opened`)),
      (error: unknown) => opened || rejectOpened(error),
    );

    async function end(commit: boolean): Promise<void> {
      finish(commit);
      try {
        await running;
      } catch (error) {
        // A rollback we asked for ends in our own error (or the library's wrapping of it): the expected end.
        if (!commit) return;
        throw error;
      }
    }
  });
}
