// What both measuring processes of bench/allocations share: a count of the garbage collections V8 reports, and a
// forced collection that returns once that count shows it.
import { PerformanceObserver } from "node:perf_hooks";

let count = 0;
new PerformanceObserver((list) => {
  count += list.getEntries().length;
}).observe({ entryTypes: ["gc"] });

/** Collections reported so far (the observer reports each one a little after it ran). */
export const collectionsSoFar = () => count;

/** A forced collection, once the observer has reported it (waiting at most about 1 s). */
export async function collect() {
  const before = count;
  globalThis.gc();
  for (let wait = 0; wait < 1_000 && count === before; wait++) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
