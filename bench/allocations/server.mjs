// HTTP half of bench/allocations: bench/adapters' server for one framework (its webhook and same-checks routes),
// plus two IPC messages from run.mjs: "mark" (collect, then note the used heap) and "measure" (answer the bytes
// allocated since the mark, and how many collections ran meanwhile). Started by run.mjs under its MEASURING_FLAGS.
import v8 from "node:v8";
import { collect, collectionsSoFar } from "./collections.mjs";

let mark;
process.on("message", async (message) => {
  if (message === "mark") {
    await collect();
    mark = { used: v8.getHeapStatistics().used_heap_size, collections: collectionsSoFar() };
    process.send("marked");
  }
  if (message === "measure") {
    const used = v8.getHeapStatistics().used_heap_size;
    setImmediate(() => process.send({ bytes: used - mark.used, collections: collectionsSoFar() - mark.collections }));
  }
});
await import("../adapters/servers.mjs");
