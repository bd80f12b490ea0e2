import type { CompiledQuery, RawNode } from "kysely";

/**
 * One statement as Kysely's `CompiledQuery.raw(sql, parameters)` builds it, made here so that nothing of Kysely is
 * imported at run time: its connections read only `sql` and `parameters`.
 */
export function compiledStatement(sql: string, parameters: readonly unknown[]): CompiledQuery {
  const query: RawNode = { kind: "RawNode", sqlFragments: [sql], parameters: [] };
  return { sql, parameters, query, queryId: { queryId: "kirimbayar" } };
}
