/**
 * A MySQL statement with `?` placeholders rewritten as Sequelize's bind parameters (`$1`, `$2` …, which Sequelize
 * turns back into the driver's `?` with the values in order).
 */
export function numberedPlaceholders(sql: string): string {
  let position = 0;
  return sql.replace(/\?/g, () => `$${++position}`);
}
