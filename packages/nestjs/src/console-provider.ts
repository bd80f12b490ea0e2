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

/** The console's route as the module defines it: where it is served, behind which guards. */
export type ConsoleRoute = Omit<KirimbayarConsoleOptions, "handler"> & { basePath: string };

/**
 * The route of the `console` given when the module is defined, or `undefined` without one. The path is `basePath`,
 * else the console's own (`forRoot()` with a console object).
 *
 * @throws ConfigurationError when neither gives a path (`forRootAsync()` without `console.basePath`).
 */
export function consoleRouteOf(console: KirimbayarConsoleOptions | undefined): ConsoleRoute | undefined {
  if (console === undefined) return undefined;
  const { handler, ...route } = console;
  const basePath = route.basePath ?? (isConsole(handler) ? handler.basePath : undefined);
  if (typeof basePath !== "string" || basePath.trim() === "") {
    throw new ConfigurationError(
      "console.basePath",
      "KirimbayarModule: console needs the path it is served at, fixed when the module is defined: give " +
        "console.basePath (the basePath you build the console with), e.g. forRootAsync({ console: { basePath: " +
        '"/kirimbayar/console", guards }, useFactory: () => ({ console: { handler } }) }).',
    );
  }
  return { ...route, basePath };
}

/**
 * The console the module serves, from the module options, checked against the route at boot: the console of
 * `options.console.handler` (called with the module's services when it is a function), served at `route`.
 *
 * @throws ConfigurationError when a route has no console or a console no route, when the handler is not a console,
 * or when the console's `basePath` is not the route's.
 */
export function resolveConsole(
  options: KirimbayarModuleOptions,
  route: string | null,
  context: KirimbayarConsoleContext,
): MountableConsole | null {
  const given = options.console?.handler;
  if (route === null) {
    if (given === undefined) return null;
    throw new ConfigurationError(
      "console",
      "KirimbayarModule: the module options have console.handler, but the module was defined without a console " +
        "route: give its path and guards where you call forRootAsync, forRootAsync({ console: { basePath, " +
        "guards }, useFactory }), since Nest fixes routes before the factory runs.",
    );
  }
  if (given === undefined) {
    throw new ConfigurationError(
      "console.handler",
      `KirimbayarModule: a console is routed at ${route} but the module options have no console.handler: return ` +
        "console: { handler } from useFactory (createWebhookConsole() of @kirimbayar/console).",
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
  if (normalisedPath(webConsole.basePath) !== normalisedPath(route)) {
    throw new ConfigurationError(
      "console.basePath",
      `KirimbayarModule: the console is routed at ${route} but was built with basePath ${webConsole.basePath}: ` +
        "they must be the same path (the console's links and forms start with its basePath).",
    );
  }
  return webConsole;
}

function normalisedPath(path: string): string {
  return `/${path.trim().replace(/^\/+|\/+$/g, "")}`;
}
