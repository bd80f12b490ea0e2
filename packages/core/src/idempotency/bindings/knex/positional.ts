/**
 * A PostgreSQL statement with `$1`, `$2` … placeholders rewritten for Knex's `raw`, whose placeholders are `?` on
 * every database: each `$n` becomes `?` with its value at that position (a value used twice is bound twice), and a
 * literal `?` (a JSON operator) is escaped so Knex leaves it alone.
 */
export function knexPositional(sql: string, params: readonly unknown[]): { sql: string; bindings: unknown[] } {
  const bindings: unknown[] = [];
  const text = sql.replace(/\?|\$(\d+)/g, (match, index: string | undefined) => {
    if (index === undefined) return "\\?";
    const position = Number(index) - 1;
    if (position >= params.length) throw new RangeError(`knexBinding: no value for ${match}`);
    bindings.push(params[position]);
    return "?";
  });
  return { sql: text, bindings };
}
