import { defineConfig } from "tsdown";
import { libraryConfig } from "../../tsdown.base.ts";

export default defineConfig([
  libraryConfig("node", {
    entry: {
      index: "src/index.ts",
      msw: "src/msw.ts",
      express: "src/express.ts",
      fastify: "src/fastify.ts",
      hono: "src/hono.ts",
      nestjs: "src/nestjs.ts",
    },
  }),
  // The `kirimbayar-fake` bin: one ESM file with its shebang, no declarations.
  libraryConfig("node", { entry: { cli: "src/cli.ts" }, format: ["esm"], dts: false, clean: false }),
]);
