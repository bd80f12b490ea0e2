// HTTP half of bench/allocations: bench/adapters' server for one framework (its webhook and same-checks routes),
// plus two IPC messages from run.mjs: "mark" (collect, then note the used heap) and "measure" (answer the bytes
// allocated since the mark, and how many collections ran meanwhile). Started by run.mjs under its MEASURING_FLAGS.
import { PerformanceObserver } from "node:perf_hooks";
import v8 from "node:v8";

let collections = 0;
new PerformanceObserver((list) => {
  collections += list.getEntries().length;
}).observe({ entryTypes: ["gc"] });
let mark;
process.on("message", async (message) => {
  if (message === "mark") {
    // The observer reports the forced collection a little later: count from after it (waiting at most 1 s).
    const before = collections;
    globalThis.gc();
    for (let wait = 0; wait < 1_000 && collections === before; wait++) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    mark = { used: v8.getHeapStatistics().used_heap_size, collections };
    process.send("marked");
  }
  if (message === "measure") {
    const used = v8.getHeapStatistics().used_heap_size;
    setImmediate(() => process.send({ bytes: used - mark.used, collections: collections - mark.collections }));
  }
});
await import("../adapters/servers.mjs");
