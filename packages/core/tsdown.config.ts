import { defineConfig } from "tsdown";
import { libraryConfig } from "../../tsdown.base.ts";

// Entries stay separate so that `@kirimbayar/core/webhooks` never pulls in the API clients, and the crypto
// provider is picked at runtime through the `#crypto` conditional import (node:crypto on Node, Web Crypto elsewhere).
export default defineConfig(
  libraryConfig("neutral", {
    entry: {
      index: "src/index.ts",
      webhooks: "src/webhooks.ts",
      "webhooks-transport": "src/webhooks-transport.ts",
      "webhooks-ip-allowlist": "src/webhooks-ip-allowlist.ts",
      postgres: "src/postgres.ts",
      redis: "src/redis.ts",
      mysql: "src/mysql.ts",
      prisma: "src/prisma.ts",
      typeorm: "src/typeorm.ts",
      knex: "src/knex.ts",
      kysely: "src/kysely.ts",
      drizzle: "src/drizzle.ts",
      sequelize: "src/sequelize.ts",
      telemetry: "src/telemetry.ts",
      journal: "src/journal.ts",
      shutdown: "src/shutdown.ts",
      "crypto-node": "src/crypto/node.ts",
      "crypto-web": "src/crypto/web.ts",
    },
    external: ["#crypto", /^node:/],
  }),
);
