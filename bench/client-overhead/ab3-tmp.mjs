import { spawn } from "node:child_process";
import { ShippingClient } from "@kirimbayar/core";
const child = spawn(process.execPath, ["../../packages/testing/dist/cli.js", "serve", "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
const serverUrl = await new Promise((resolve) => { let out = ""; child.stdout.on("data", (c) => { out += c; const m = /listening on (http:\/\/[\d.:]+)/.exec(out); if (m) resolve(m[1]); }); });
const key = "test_shipping_key";
const url = `${serverUrl}/api/v1/destination/domestic-destination?search=bandung&limit=10`;
const client = new ShippingClient({ apiKey: key, baseUrl: serverUrl, cache: false });
const variants = {
  raw: async () => (await fetch(url, { headers: { key } })).json(),
  client: () => client.searchDomesticDestinations({ search: "bandung", limit: 10 }),
};
async function t(f, n) { const s = process.hrtime.bigint(); for (let i = 0; i < n; i++) await f(); return Number(process.hrtime.bigint() - s) / 1000 / n; }
for (const f of Object.values(variants)) await t(f, 300);
const res = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let b = 0; b < 10; b++) for (const [k, f] of Object.entries(variants)) res[k].push(await t(f, 200));
const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
for (const [k, a] of Object.entries(res)) console.log(k.padEnd(14), med(a).toFixed(0), "µs");
child.kill();
