// One shop instance of the cross-process coalescing run: a rate quoter on a shared Redis, driven by the parent over
// stdin. Each `go <origin> <destination> <count>` line fires `count` identical quotes at once and answers one JSON
// line with the cost calls this process sent per courier and its counts. Prints `ready` once connected.
import { createInterface } from "node:readline";
import { ShippingClient } from "@kirimbayar/core";
import { createRateQuoter } from "@kirimbayar/core/quoter";
import { redisRateStore } from "@kirimbayar/core/quoter/redis";
import { Redis } from "ioredis";
import { countingFetch } from "./trace.mjs";

const [fakeUrl, key, redisUrl, prefix, couriers] = process.argv.slice(2);
const redis = new Redis(redisUrl, { enableOfflineQueue: false, lazyConnect: true });
await redis.connect();
const counting = countingFetch();
const quoter = createRateQuoter({
  client: new ShippingClient({ apiKey: key, baseUrl: fakeUrl, fetch: counting.fetch }),
  couriers: couriers.split(":"),
  cache: { store: redisRateStore({ client: redis, keyPrefix: prefix }) },
});
console.log("ready");
for await (const line of createInterface({ input: process.stdin })) {
  const [command, origin, destination, count] = line.split(" ");
  if (command !== "go") break;
  const before = counting.calls.length;
  const quotes = await Promise.all(
    Array.from({ length: Number(count) }, () =>
      quoter.quote({ origin: Number(origin), destination: Number(destination), weight: 1_000 }),
    ),
  );
  const calls = Object.fromEntries(
    couriers.split(":").map((c) => [c, counting.calls.slice(before).filter((call) => call.includes(c)).length]),
  );
  const complete = quotes.filter((q) => q.complete).length;
  console.log(JSON.stringify({ calls, complete, stats: quoter.stats().total }));
}
redis.disconnect();
