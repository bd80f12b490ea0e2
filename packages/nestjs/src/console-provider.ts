// Where the module's console comes from: the route is fixed when the module is defined (`console` of the extras),
// the console itself from the module options, so that `forRootAsync()` can build it from injected providers.
import { ConfigurationError } from "@kirimbayar/core";
import { isConsole } from "./console-controller.js";
import type {
  KirimbayarConsoleContext,
  KirimbayarConsoleOptions,
  KirimbayarModuleOptions,
  MountableConsole,
} from "./options.js";

/** The console's route as the module defines it: where it is served, behind which guards (and the console, if given). */
export type ConsoleRoute = KirimbayarConsoleOptions & { basePath: string };

/**
 * The route of the `console` given when the module is defined, or `undefined` without one. The path is `basePath`,
 * else the console's own (`forRoot()` with a console object).
 *
 * @throws ConfigurationError when neither gives a path (`forRootAsync()` without `console.basePath`).
 */
export function consoleRouteOf(console: KirimbayarConsoleOptions | undefined): ConsoleRoute | undefined {
  if (console === undefined) return undefined;
  const basePath = console.basePath ?? (isConsole(console.handler) ? console.handler.basePath : undefined);
  if (typeof basePath !== "string" || basePath.trim() === "") {
    throw new ConfigurationError(
      "console.basePath",
      "KirimbayarModule: console needs the path it is served at, fixed when the module is defined: give " +
        "console.basePath (the basePath you build the console with), e.g. forRootAsync({ console: { basePath: " +
        '"/kirimbayar/console", guards }, useFactory: () => ({ console: { handler } }) }).',
    );
  }
  return { ...console, basePath };
}

/**
 * The console the module serves, checked against its route at boot: `console.handler` of the module options (what
 * `forRootAsync()`'s factory returns), else the one given with the route; called with the module's services when it
 * is a function.
 *
 * @throws ConfigurationError when a route has no console or a console no route, when two different consoles are
 * given, when the handler is not a console, or when the console's `basePath` is not the route's.
 */
export function resolveConsole(
  options: KirimbayarModuleOptions,
  route: Pick<ConsoleRoute, "basePath" | "handler"> | null,
  context: KirimbayarConsoleContext,
): MountableConsole | null {
  const fromOptions = options.console?.handler;
  if (route === null) {
    if (fromOptions === undefined) return null;
    throw new ConfigurationError(
      "console",
      "KirimbayarModule: the module options have console.handler, but the module was defined without a console " +
        "route: give its path and guards where you call forRootAsync, forRootAsync({ console: { basePath, " +
        "guards }, useFactory }), since Nest fixes routes before the factory runs.",
    );
  }
  // forRoot() has the same handler in both (its options are the route's too).
  if (fromOptions !== undefined && route.handler !== undefined && fromOptions !== route.handler) {
    throw new ConfigurationError(
      "console.handler",
      "KirimbayarModule: two consoles are given, one where the module is defined (console.handler) and one by " +
        "useFactory (console.handler): give it once.",
    );
  }
  const given = fromOptions ?? route.handler;
  if (given === undefined) {
    throw new ConfigurationError(
      "console.handler",
      `KirimbayarModule: a console is routed at ${route.basePath} but the module options have no console.handler: ` +
        "return console: { handler } from useFactory (createWebhookConsole() of @kirimbayar/console).",
    );
  }
  const webConsole: unknown = typeof given === "function" ? given(context) : given;
  if (!isConsole(webConsole)) {
    throw new ConfigurationError(
      "console.handler",
      "KirimbayarModule: console.handler must be a console (createWebhookConsole() of @kirimbayar/console, or an " +
        "object with basePath and fetch(request)), or a function returning one.",
    );
  }
  if (normalisedPath(webConsole.basePath) !== normalisedPath(route.basePath)) {
    throw new ConfigurationError(
      "console.basePath",
      `KirimbayarModule: the console is routed at ${route.basePath} but was built with basePath ${webConsole.basePath}: ` +
        "they must be the same path (the console's links and forms start with its basePath).",
    );
  }
  return webConsole;
}

function normalisedPath(path: string): string {
  return `/${path.trim().replace(/^\/+|\/+$/g, "")}`;
}
