import type { IncomingMessage, ServerResponse } from "node:http";
import { inject } from "light-my-request";
import { type InjectTargetOptions, type InProcessFetch, injectRequestOf, requestOf, webResponseOf } from "./inject.js";

/**
 * An Express app (what `express()` returns) or any Node request listener `(req, res) => void`, typed structurally so
 * that these declarations need no Express.
 */
export type NodeRequestListenerLike = (req: never, res: never) => unknown;

/**
 * A Node `http.Server` (what `app.listen()` returns, or `http.createServer(app)` before listening): requests go to
 * every `request` listener it has, in order, as a socket's would.
 */
export interface NodeServerLike {
  emit(event: "request", ...args: never[]): boolean;
}

type Dispatch = (req: IncomingMessage, res: ServerResponse) => void;

/** The dispatch function of `target`, or a TypeError naming what was expected. */
export function dispatchOf(target: NodeRequestListenerLike | NodeServerLike, helper: string): Dispatch {
  if (typeof target === "function") return target as unknown as Dispatch;
  if (typeof (target as NodeServerLike | undefined)?.emit === "function") {
    const server = target as unknown as { emit(event: "request", req: IncomingMessage, res: ServerResponse): boolean };
    return (req, res) => {
      server.emit("request", req, res);
    };
  }
  throw new TypeError(
    `${helper} needs an Express app (what express() returns), a Node request listener (req, res) or an http.Server; got ${typeof target}`,
  );
}

/** A `fetch` that injects each request into `dispatch` with light-my-request. */
export function injectingFetch(dispatch: Dispatch, options: InjectTargetOptions): InProcessFetch {
  return async (input, init) => {
    const request = requestOf(input, init);
    const answer = await inject(dispatch, await injectRequestOf(request, options));
    return webResponseOf(answer, request.method);
  };
}
