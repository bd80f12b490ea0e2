// The module's declarations type the optional peers it works with (`@kirimbayar/inbox`, `@kirimbayar/console`) by
// shape, so an app without them compiles (tests/packaging's strict-consumer gate). What those packages hand out must
// still fit with no cast: checked by the compiler (`tsc --noEmit`, the typecheck task) on their real types.
import type { ConsoleInbox, ConsoleReconciler, WebhookConsole } from "@kirimbayar/console";
import type { InboxQueue, InboxWorkerOptions } from "@kirimbayar/inbox";
import { describe, expectTypeOf, it } from "vitest";
import type {
  KirimbayarConsoleContext,
  KirimbayarInboxQueue,
  KirimbayarInboxWorkerOptions,
  KirimbayarReconciler,
  MountableConsole,
} from "../src/index.js";

describe("the module's structural types of its optional peers", () => {
  it("take @kirimbayar/inbox's queue and worker settings, and @kirimbayar/console's console", () => {
    expectTypeOf<InboxQueue>().toMatchTypeOf<KirimbayarInboxQueue>();
    expectTypeOf<
      Pick<InboxWorkerOptions, "concurrency" | "retry" | "logger" | "telemetry">
    >().toMatchTypeOf<KirimbayarInboxWorkerOptions>();
    expectTypeOf<KirimbayarInboxWorkerOptions>()
      .omit<"stopTimeoutMs">()
      .toMatchTypeOf<Pick<InboxWorkerOptions, "concurrency" | "retry" | "logger" | "telemetry">>();
    expectTypeOf<WebhookConsole>().toMatchTypeOf<MountableConsole>();
    // The queue the module hands back (KirimbayarInboxWorker.queue) serves the console's inbox pages.
    expectTypeOf<KirimbayarInboxQueue>().toMatchTypeOf<ConsoleInbox>();
  });

  it("give a console the module's reconciler as @kirimbayar/console takes it", () => {
    expectTypeOf<KirimbayarReconciler>().toMatchTypeOf<KirimbayarConsoleContext["reconciler"]>();
    expectTypeOf<KirimbayarConsoleContext["reconciler"]>().toMatchTypeOf<ConsoleReconciler>();
  });
});
