// Which object stands for one mysql2 connection, whichever style the app passed: mysql2's callback-style
// `Connection`, or the `mysql2/promise` wrapper around it. `connection.promise()` makes a new wrapper at each call, so
// a store given the connection and a journal given `connection.promise()` (or two wrappers) must still meet on the
// same object to take turns on it (see ../sql/connection-turn.ts).

/**
 * The callback-style connection under `given` (a `mysql2/promise` connection keeps it as `connection`), else `given`.
 *
 * @example
 * mysqlConnectionScope(connection.promise()) === mysqlConnectionScope(connection); // true
 */
export function mysqlConnectionScope(given: object): object {
  if (typeof (given as { promise?: unknown }).promise === "function") return given;
  const inner = (given as { connection?: unknown }).connection;
  const wrapsConnection =
    typeof inner === "object" && inner !== null && typeof (inner as { promise?: unknown }).promise === "function";
  return wrapsConnection ? (inner as object) : given;
}
