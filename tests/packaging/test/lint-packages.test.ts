import { describe, expect, it } from "vitest";
import { readPublishedPackages, run } from "./workspace.js";

// publint and attw are the gates that keep a release from breaking ESM, CJS or bundler consumers.
describe.each(readPublishedPackages())("$name", (pkg) => {
  it("passes publint --strict", async () => {
    const { stdout } = await run("pnpm", ["exec", "publint", "--strict"], { cwd: pkg.dir });
    expect(stdout).toMatch(/All good!/);
  });

  it("passes attw --pack on node10, node16 (CJS and ESM) and bundler", async () => {
    // attw exits non-zero on any problem; the JSON lets us also assert every entry point was analysed.
    const { stdout } = await run("pnpm", ["exec", "attw", "--pack", ".", "--format", "json"], {
      cwd: pkg.dir,
      maxBuffer: 64 * 1024 * 1024,
    });
    const report = JSON.parse(stdout);
    const problems = report.problems ?? {};
    expect(Array.isArray(problems) ? problems : Object.values(problems).flat()).toEqual([]);
    const analysed = Object.keys(report.analysis?.entrypoints ?? {});
    expect(analysed.length).toBe(pkg.entryPoints.length + 1);
  });
});
