import type { WebhookContext } from "@kirimbayar/core/webhooks";

/** What a handler is told to do for one delivery. */
export type HandlerBehaviour = "succeed" | "fail-first-call" | "hold-first-call";

/** One handler call, as the conformance table names it: `source:event:id`. */
export type HandlerCall = string;

/**
 * Records every handler call of one app under test and plays the behaviour a table row asks for: fail the first
 * call (the provider's retry must then run the handler again) or hold the first call until released (so a
 * duplicate can arrive while it is in flight).
 */
export class HandlerRecorder {
  readonly calls: HandlerCall[] = [];
  readonly #behaviour: HandlerBehaviour;
  readonly #entered: Promise<void>;
  readonly #release: Promise<void>;
  #signalEntered!: () => void;
  #signalRelease!: () => void;

  constructor(behaviour: HandlerBehaviour = "succeed") {
    this.#behaviour = behaviour;
    this.#entered = new Promise((resolve) => {
      this.#signalEntered = resolve;
    });
    this.#release = new Promise((resolve) => {
      this.#signalRelease = resolve;
    });
  }

  /** Resolves when the first handler call has started. */
  entered(): Promise<void> {
    return this.#entered;
  }

  /** Lets a held first call finish. */
  release(): void {
    this.#signalRelease();
  }

  /** The handler body every adapter's handlers delegate to. */
  async handle(source: string, event: unknown, _ctx?: WebhookContext): Promise<void> {
    const first = this.calls.length === 0;
    this.calls.push(`${source}:${callName(event)}`);
    this.#signalEntered();
    if (!first) return;
    if (this.#behaviour === "fail-first-call") throw new Error("handler failed on purpose");
    if (this.#behaviour === "hold-first-call") await this.#release;
  }
}

function callName(event: unknown): string {
  const e = event as Record<string, unknown> & { data?: Record<string, unknown> };
  if (typeof e.event === "string") return `${e.event}:${String(e.data?.qris_history_id)}`;
  if (e.order_no !== undefined) return `${String(e.order_no)}:${String(e.status)}`;
  return `callback:${String(e.payment_id)}`;
}
