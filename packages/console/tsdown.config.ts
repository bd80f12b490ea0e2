import { defineConfig } from "tsdown";
import { libraryConfig } from "../../tsdown.base.ts";

// Runtime-neutral: Web Request/Response and Web Crypto only, so it mounts on Node, Bun, Deno and Workers alike.
export default defineConfig(libraryConfig("neutral", { entry: { index: "src/index.ts" } }));
