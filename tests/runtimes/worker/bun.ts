// Bun entry: `bun run worker/bun.ts` with the configuration in the environment. Bun runs this TypeScript as it is
// and resolves the packages from node_modules itself. Prints `listening <port>` once it accepts connections, and
// exits by itself after SHOP_LIFETIME_MS even if the test that started it died without closing it.
import { buildShop, LIFETIME_NAME, readConfig } from "./shop.ts";

declare const Bun: {
  env: Record<string, string | undefined>;
  serve(options: { port: number; hostname: string; fetch: (request: Request) => Response | Promise<Response> }): {
    port: number;
  };
};
declare const process: { exit(code: number): never };

const app = buildShop(readConfig((name) => Bun.env[name]));
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: app.fetch });
setTimeout(() => process.exit(3), Number(Bun.env[LIFETIME_NAME] ?? 60_000));
console.log(`listening ${server.port}`);
