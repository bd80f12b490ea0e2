import type { WebhookContext } from "../context.js";
import type { WebhookHandler } from "../registry.js";
import { adopt, type MaybeAsync } from "./thenable.js";

type Handler = WebhookHandler<unknown>;

/**
 * The run stage: calls the handlers from `from` on, in order, each after the previous one settled. Whatever a
 * handler returns is adopted as `await` would (see `adopt`): a lazy thenable is started, a promise of another
 * realm is followed, and its rejection is the stage's rejection. Synchronous while handlers return plain values;
 * a synchronous throw propagates to the caller. The value it settles with means nothing.
 */
export function runHandlers(
  handlers: readonly Handler[],
  event: unknown,
  context: WebhookContext,
  from = 0,
): MaybeAsync<unknown> {
  const last = handlers.length - 1;
  for (let i = from; i <= last; i++) {
    const result = adopt((handlers[i] as Handler)(event, context));
    if (result instanceof Promise) {
      // The last handler's promise is the stage's own: the usual single async handler costs no further promise.
      return i === last ? result : result.then(() => runHandlers(handlers, event, context, i + 1));
    }
  }
  return undefined;
}
