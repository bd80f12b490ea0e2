import { describe, expect, it, vi } from "vitest";
import { perEnv } from "../src/per-env.js";

describe("perEnv", () => {
  it("builds once for the same env object", () => {
    const build = vi.fn((env: { TOKEN: string }) => ({ token: env.TOKEN }));
    const built = perEnv(build);
    const env = { TOKEN: "a" };
    expect(built(env)).toBe(built(env));
    expect(build).toHaveBeenCalledOnce();
  });

  it("shares one build between new env objects with the same values (@hono/node-server, Deno)", () => {
    const build = vi.fn(() => ({}));
    const built = perEnv(build);
    const request = () => ({ incoming: { headers: {} }, outgoing: {} });
    expect(built(request())).toBe(built(request()));
    expect(built({ TOKEN: "a", KV: { put() {} } })).toBe(built({ KV: { get() {} }, TOKEN: "a" }));
    expect(build).toHaveBeenCalledTimes(2);
  });

  it("builds again when a binding's value differs, and for a missing env once", () => {
    const build = vi.fn((env: { TOKEN?: string; DEBUG?: boolean } | undefined) => ({ token: env?.TOKEN }));
    const built = perEnv(build);
    expect(built({ TOKEN: "a" }).token).toBe("a");
    expect(built({ TOKEN: "rotated" }).token).toBe("rotated");
    expect(built({ TOKEN: "a", DEBUG: true })).not.toBe(built({ TOKEN: "a" }));
    expect(built(undefined)).toBe(built(undefined));
    expect(build).toHaveBeenCalledTimes(4);
  });

  it("remembers a bounded number of value sets, dropping the oldest", () => {
    const build = vi.fn((env: { N: number }) => ({ n: env.N }));
    const built = perEnv(build);
    const first = built({ N: 0 });
    for (let n = 1; n <= 32; n++) built({ N: n });
    expect(built({ N: 32 }).n).toBe(32);
    expect(build).toHaveBeenCalledTimes(33);
    expect(built({ N: 0 })).not.toBe(first);
    expect(build).toHaveBeenCalledTimes(34);
  });
});
