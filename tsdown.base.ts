// Build settings every published package shares, so that format, declarations and targets change in one place.
// Each package's tsdown.config.ts passes its entries and what differs (runtime, externals).
import type { UserConfig } from "tsdown";

/** Where a package runs: "node" for the Node-only adapters and kit, "neutral" for core and Hono (any runtime). */
export type PackageRuntime = "node" | "neutral";

/**
 * A dual ESM + CJS library build with declarations, for `runtime`. Node packages target the oldest Node the repo
 * supports (20.19: `require(esm)` unflagged); runtime-neutral ones target ES2022 and leave `node:` imports out.
 *
 * @example
 * export default defineConfig(libraryConfig("node", { entry: { index: "src/index.ts" } }));
 */
export function libraryConfig(runtime: PackageRuntime, config: UserConfig): UserConfig {
  return {
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: false,
    clean: true,
    platform: runtime,
    target: runtime === "node" ? "node20.19" : "es2022",
    fixedExtension: false,
    checks: { legacyCjs: false, pluginTimings: false },
    ...config,
  };
}
