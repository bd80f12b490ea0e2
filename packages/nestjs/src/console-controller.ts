import { ConfigurationError } from "@kirimbayar/core";
import { All, Controller, Inject, Optional, Req, Res, type Type, UseGuards } from "@nestjs/common";
import { HttpAdapterHost } from "@nestjs/core";
import { assertConsoleGuards, consoleGuards } from "./console-guards.js";
import {
  type ConsoleRequestLike,
  consoleRequestOf,
  type FastifyReplyLike,
  type NodeResponseLike,
  writeConsoleResponse,
} from "./console-http.js";
import type { KirimbayarConsoleOptions, MountableConsole } from "./options.js";
import { KIRIMBAYAR_CONSOLE } from "./tokens.js";

/** The default limit of a console request body: a console form post is a few hundred bytes. */
const CONSOLE_MAX_BODY_BYTES = 16_384;
const CONSOLE_BODY_READ_TIMEOUT_MS = 10_000;

/**
 * Creates the controller serving a console at its `basePath`, guarded by `guards` (then by the console's own
 * `authorize`). `KirimbayarModule.forRoot({ console })` registers it; list it in a module's `controllers` yourself
 * to serve a console from another module. Every method and every path up to three segments under the base path
 * (every console route is one or two) reach the console; its answer (status, CSP, cookies, redirects) goes back
 * unchanged, on Express and on Fastify. The form bodies are taken as Nest's body parser left them (the raw bytes
 * with `rawBody: true`, else the parsed fields, encoded again). A guard class is resolved from the app (see
 * {@link KirimbayarConsoleOptions.guards}).
 *
 * @throws ConfigurationError when `handler` is not a console, or a guard is neither a class nor an instance.
 *
 * @example
 * @Module({ controllers: [createConsoleController({ handler: webConsole, guards: [AuthGuard] })] })
 * class AdminModule {}
 */
export function createConsoleController(options: KirimbayarConsoleOptions & { handler: MountableConsole }): Type {
  const handler = options.handler as unknown;
  if (!isConsole(handler)) {
    throw new ConfigurationError(
      "console.handler",
      "createConsoleController: handler must be a console (createWebhookConsole() of @kirimbayar/console, or an " +
        `object with basePath and fetch(request)), got ${handler === null ? "null" : typeof handler}.`,
    );
  }
  return consoleController({ ...options, basePath: options.basePath ?? handler.basePath }, handler);
}

/**
 * The console controller of a module definition: served at `route.basePath`, its console injected
 * (`KIRIMBAYAR_CONSOLE`, from the module options) unless `handler` is given here.
 */
export function consoleController(
  route: Omit<KirimbayarConsoleOptions, "handler"> & { basePath: string },
  handler?: MountableConsole,
): Type {
  const guards = route.guards ?? [];
  assertConsoleGuards(guards);
  const limits = {
    maxBodyBytes: route.maxBodyBytes ?? CONSOLE_MAX_BODY_BYTES,
    bodyReadTimeoutMs: CONSOLE_BODY_READ_TIMEOUT_MS,
  };

  @Controller(route.basePath)
  @UseGuards(consoleGuards(guards))
  class KirimbayarConsoleController {
    readonly #console: MountableConsole;

    constructor(
      @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
      @Optional() @Inject(KIRIMBAYAR_CONSOLE) injected?: MountableConsole | null,
    ) {
      const webConsole = handler ?? injected;
      if (webConsole === undefined || webConsole === null) {
        throw new ConfigurationError(
          "console.handler",
          `KirimbayarModule: no console to serve at ${route.basePath}: give console.handler.`,
        );
      }
      this.#console = webConsole;
    }

    // One route per depth instead of a wildcard: Express 5 and Fastify share no wildcard syntax (`{*path}` is
    // refused by Fastify's router, `*` makes Nest warn on Express). Every console route is at most two segments
    // deep (`/actions/replay`); a third is allowed for what a later version may add. The base path is routed with
    // and without its trailing slash (the console's own Overview link has it): Fastify tells them apart, and Nest
    // strips one trailing slash from a route, so `//` is what leaves `<basePath>/`.
    @All(["/", "//"])
    root(@Req() req: ConsoleRequestLike, @Res() res: unknown): Promise<void> {
      return this.serve(req, res);
    }

    @All(":kirimbayarConsole1")
    page(@Req() req: ConsoleRequestLike, @Res() res: unknown): Promise<void> {
      return this.serve(req, res);
    }

    @All(":kirimbayarConsole1/:kirimbayarConsole2")
    subPage(@Req() req: ConsoleRequestLike, @Res() res: unknown): Promise<void> {
      return this.serve(req, res);
    }

    @All(":kirimbayarConsole1/:kirimbayarConsole2/:kirimbayarConsole3")
    deepPage(@Req() req: ConsoleRequestLike, @Res() res: unknown): Promise<void> {
      return this.serve(req, res);
    }

    private async serve(req: ConsoleRequestLike, res: unknown): Promise<void> {
      const onFastify = this.adapterHost.httpAdapter?.getType() === "fastify";
      const request = await consoleRequestOf(req, onFastify, limits);
      const response = request instanceof Response ? request : await this.#console.fetch(request);
      await writeConsoleResponse(
        res as NodeResponseLike | FastifyReplyLike,
        response,
        req.method === "HEAD",
        onFastify,
      );
    }
  }
  return KirimbayarConsoleController;
}

/** Whether `value` is a console: a `basePath` and a `fetch(request)`. */
export function isConsole(value: unknown): value is MountableConsole {
  const candidate = value as Partial<MountableConsole> | null | undefined;
  return typeof candidate?.basePath === "string" && typeof candidate.fetch === "function";
}
