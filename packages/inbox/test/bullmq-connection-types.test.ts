// `createBullMqInbox({ connection })` is typed by shape (bullmq stays an optional peer whose types the inbox's
// declarations never import): whatever BullMQ itself takes as a connection must still fit, with no cast. Checked by
// the compiler (`tsc --noEmit`, the typecheck task); the test body only keeps vitest from reporting an empty file.
import type { ConnectionOptions } from "bullmq";
import type { Cluster, Redis } from "ioredis";
import { describe, expectTypeOf, it } from "vitest";
import type { BullMqConnection, BullMqInboxOptions } from "../src/bullmq.js";

describe("BullMqInboxOptions.connection", () => {
  it("takes BullMQ's own ConnectionOptions, ioredis options, and Redis and Cluster clients", () => {
    expectTypeOf<ConnectionOptions>().toMatchTypeOf<BullMqConnection>();
    expectTypeOf<Redis>().toMatchTypeOf<BullMqInboxOptions["connection"]>();
    expectTypeOf<Cluster>().toMatchTypeOf<BullMqInboxOptions["connection"]>();
    expectTypeOf({
      host: "127.0.0.1",
      port: 6379,
      maxRetriesPerRequest: null,
      enableAutoPipelining: true,
    }).toMatchTypeOf<BullMqInboxOptions["connection"]>();
    expectTypeOf({ host: 6379 }).not.toMatchTypeOf<BullMqInboxOptions["connection"]>();
  });
});
