/**
 * Memoises `build` per env object (Workers pass the same bindings object to every request of an isolate); a
 * missing env (plain Node, `app.request()` without env) shares one entry.
 */
export function perEnv<Env, T>(build: (env: Env) => T): (env: Env) => T {
  const cache = new WeakMap<object, T>();
  const noEnv = {};
  return (env) => {
    const key = typeof env === "object" && env !== null ? env : noEnv;
    let value = cache.get(key);
    if (value === undefined) {
      value = build(env);
      cache.set(key, value);
    }
    return value;
  };
}
