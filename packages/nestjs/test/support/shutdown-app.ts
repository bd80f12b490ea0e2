// The Nest module both shutdown test files boot (Express and Fastify platforms): KirimbayarShutdownModule, the QRIS
// receiver with its store tracked by the graceful shutdown, a handler that takes its time, a readiness probe and a
// resource closed on shutdown. The handler and the resource write to one `order`, so that a test sees what ran first.
import "reflect-metadata";
import type { GracefulShutdown } from "@kirimbayar/core/shutdown";
import { type MemoryIdempotencyStore, tokenVerifier } from "@kirimbayar/core/webhooks";
import { Controller, Get, Inject, Injectable, type OnApplicationShutdown, type Type } from "@nestjs/common";
import { Test, type TestingModule } from "@nestjs/testing";
import {
  type KirimbayarInboxOptions,
  KirimbayarModule,
  KirimbayarShutdown,
  KirimbayarShutdownModule,
  OnQrisEvent,
} from "../../src/index.js";

export const quiet = { warn: () => {}, error: () => {} };
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

@Controller()
class Readiness {
  constructor(@Inject(KirimbayarShutdown) private readonly shutdown: KirimbayarShutdown) {}

  @Get("readyz")
  ready() {
    return { ready: this.shutdown.ready };
  }
}

/** A handler of `payment.success` taking `handlerMs(id)`, then writing `applied <id>` to `order`. */
function paymentsWriting(order: string[], handlerMs: (id: string) => number): Type<unknown> {
  @Injectable()
  class Payments {
    @OnQrisEvent("payment.success")
    async paid(event: { data: { qris_history_id: string } }) {
      const id = event.data.qris_history_id;
      await sleep(handlerMs(id));
      order.push(`applied ${id}`);
    }
  }
  return Payments;
}

/** A resource Nest closes on shutdown, writing `resources closed` to `order`. */
function resourcesWriting(order: string[]): Type<unknown> {
  @Injectable()
  class Resources implements OnApplicationShutdown {
    onApplicationShutdown() {
      order.push("resources closed");
    }
  }
  return Resources;
}

export interface ShutdownModuleOptions {
  readonly shutdown: GracefulShutdown;
  /** The receiver's store; the module gets it tracked by `shutdown`. */
  readonly store: MemoryIdempotencyStore;
  /** The `?token=` the receiver accepts. */
  readonly token: string;
  /** Where the handler and the resource write what they did, in order. */
  readonly order: string[];
  /** How long the handler takes on the event of `id`. */
  readonly handlerMs: (id: string) => number;
  /** The module's inbox, when the deliveries go through one. */
  readonly inbox?: KirimbayarInboxOptions;
  /** The readiness probe (`GET /readyz`) and the resource closed on shutdown; `true` unless told. */
  readonly probeAndResources?: boolean;
}

/** Compiles the testing module; the caller creates the app on its platform. */
export function compileShutdownModule(options: ShutdownModuleOptions): Promise<TestingModule> {
  const { shutdown, store, token, order, handlerMs, inbox, probeAndResources = true } = options;
  return Test.createTestingModule({
    imports: [
      KirimbayarShutdownModule.forRoot(shutdown),
      KirimbayarModule.forRoot({
        webhooks: {
          qris: {
            verify: [tokenVerifier({ secrets: [token], in: "query" })],
            idempotency: { store: shutdown.track(store) },
            logger: quiet,
          },
        },
        ...(inbox === undefined ? {} : { inbox }),
      }),
    ],
    controllers: probeAndResources ? [Readiness] : [],
    providers: [paymentsWriting(order, handlerMs), ...(probeAndResources ? [resourcesWriting(order)] : [])],
  }).compile();
}
