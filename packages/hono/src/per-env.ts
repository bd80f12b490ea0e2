/** How many distinct sets of binding values {@link perEnv} remembers (tests and multi-tenant apps use a few). */
const MAX_VALUE_SETS = 32;

/**
 * Memoises `build` per set of bindings. Workers and Bun pass the same env object to every request, which the first
 * lookup finds at once. @hono/node-server (`{ incoming, outgoing }`) and Deno (the connection info) pass a new object
 * per request, so a miss falls back to the env's primitive values (the vars and secrets a builder reads) and envs
 * with the same values share one build. Without that, every request on Node would build new receivers, whose new
 * memory stores have forgotten every earlier delivery. A missing env (`app.request()` without one) counts as no
 * values. Object-valued bindings (KV namespaces, services) are not compared: they are fixed per isolate.
 */
export function perEnv<Env, T>(build: (env: Env) => T): (env: Env) => T {
  const byObject = new WeakMap<object, T>();
  const byValues = new Map<string, T>();
  return (env) => {
    const object = typeof env === "object" && env !== null ? env : undefined;
    const known = object === undefined ? undefined : byObject.get(object);
    if (known !== undefined) return known;
    const key = primitiveBindingsKey(object);
    let value = byValues.get(key);
    if (value === undefined) {
      value = build(env);
      byValues.set(key, value);
      // Oldest first out: a Map iterates in insertion order.
      if (byValues.size > MAX_VALUE_SETS) byValues.delete(byValues.keys().next().value as string);
    }
    if (object !== undefined) byObject.set(object, value);
    return value;
  };
}

/** The env's own string, number and boolean properties, as one comparable string. */
function primitiveBindingsKey(env: object | undefined): string {
  if (env === undefined) return "[]";
  const entries: [string, string | number | boolean][] = [];
  for (const name of Object.keys(env).sort()) {
    const value: unknown = (env as Record<string, unknown>)[name];
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      entries.push([name, value]);
    }
  }
  return JSON.stringify(entries);
}
