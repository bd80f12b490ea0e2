// Deno entry: `deno run --allow-net=127.0.0.1 --allow-env --allow-read worker/deno.ts` with the configuration in the
// environment. Prints `listening <port>` once it accepts connections, and exits by itself after SHOP_LIFETIME_MS
// even if the test that started it died without closing it.
import { buildShop, LIFETIME_NAME, readConfig } from "./shop.ts";

declare const Deno: {
  env: { get(name: string): string | undefined };
  exit(code: number): never;
  serve(
    options: { port: number; hostname: string; onListen: (address: { port: number }) => void },
    handler: (request: Request) => Response | Promise<Response>,
  ): unknown;
};

const app = buildShop(readConfig((name) => Deno.env.get(name)));
Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: ({ port }) => console.log(`listening ${port}`) }, app.fetch);
setTimeout(() => Deno.exit(3), Number(Deno.env.get(LIFETIME_NAME) ?? 60_000));
