import { ConfigurationError } from "@kirimbayar/core";
import {
  type CanActivate,
  type ExecutionContext,
  Inject,
  Injectable,
  type OnModuleInit,
  type Type,
} from "@nestjs/common";
import { ModuleRef, ModulesContainer } from "@nestjs/core";
import { isObservable, lastValueFrom } from "rxjs";

/** A guard as `@UseGuards()` takes it: a class or an instance. */
export type ConsoleGuard = CanActivate | Type<CanActivate>;

/** The slice of Nest's module objects (`ModulesContainer`'s values) used to find where the console's module is imported. */
interface NestModuleLike {
  readonly imports?: ReadonlySet<unknown>;
  readonly metatype?: { readonly name?: string };
  getProviderByKey?(key: unknown): { readonly instance?: unknown } | undefined;
}

/**
 * Checks the guards given to the console when the module is defined, so that a wrong value fails at boot.
 *
 * @example
 * assertConsoleGuards([AdminGuard]);
 */
export function assertConsoleGuards(guards: readonly unknown[]): asserts guards is readonly ConsoleGuard[] {
  for (const guard of guards) {
    const isClass = typeof guard === "function";
    const isInstance = typeof (guard as { canActivate?: unknown } | null)?.canActivate === "function";
    if (!isClass && !isInstance) {
      throw new ConfigurationError(
        "console.guards",
        `KirimbayarModule: console.guards takes guard classes or instances (with canActivate), got ${describe(guard)}.`,
      );
    }
  }
}

/**
 * Creates the guard that runs `guards` before the console, in order, as `@UseGuards(...guards)` would: the first
 * that refuses ends the request (Nest's 403, or what the guard throws). A guard class is resolved once, at module
 * init, from the app rather than from the module serving the console, so its dependencies need not be visible there:
 *
 * 1. the app's own instance, when a module of the app registers the class (as a provider, or with `@UseGuards()`
 *    on one of its controllers);
 * 2. else built in the module serving the console (its `imports`, e.g. `forRootAsync({ imports })`, and global
 *    modules);
 * 3. else built in each module that imports it (where `KirimbayarModule.forRoot()` is called).
 *
 * A class none of these can build fails the boot with a `ConfigurationError` saying what to do.
 *
 * @example
 * @UseGuards(consoleGuards([AdminGuard]))
 * class ConsoleController {}
 */
export function consoleGuards(guards: readonly ConsoleGuard[]): Type<CanActivate> {
  @Injectable()
  class KirimbayarConsoleGuards implements CanActivate, OnModuleInit {
    #resolved: Promise<CanActivate[]> | undefined;

    constructor(
      @Inject(ModuleRef) private readonly moduleRef: ModuleRef,
      @Inject(ModulesContainer) private readonly modules: ModulesContainer,
    ) {}

    async onModuleInit(): Promise<void> {
      await this.#guards();
    }

    async canActivate(context: ExecutionContext): Promise<boolean> {
      for (const guard of await this.#guards()) {
        const verdict = guard.canActivate(context);
        const allowed = isObservable(verdict) ? await lastValueFrom(verdict) : await verdict;
        if (!allowed) return false;
      }
      return true;
    }

    #guards(): Promise<CanActivate[]> {
      this.#resolved ??= Promise.all(guards.map((guard) => this.#resolve(guard)));
      return this.#resolved;
    }

    async #resolve(guard: ConsoleGuard): Promise<CanActivate> {
      if (typeof guard !== "function") return guard;
      try {
        const registered: unknown = this.moduleRef.get(guard, { strict: false });
        if (typeof (registered as CanActivate | undefined)?.canActivate === "function")
          return registered as CanActivate;
      } catch {
        // Not registered anywhere in the app: built below.
      }
      let firstFailure: unknown;
      for (const scope of [this.moduleRef, ...this.#importersRefs()]) {
        try {
          return await scope.create(guard);
        } catch (error) {
          firstFailure ??= error;
        }
      }
      throw new ConfigurationError(
        "console.guards",
        `KirimbayarModule: the console's guard ${guard.name} cannot be built: ${messageOf(firstFailure)} Register ` +
          `${guard.name} as a provider of the module that has its dependencies (providers: [${guard.name}]), or ` +
          "make them visible to KirimbayarModule (forRootAsync({ imports: [...] }), or a global module).",
      );
    }

    /** The `ModuleRef` of each module importing the one that serves the console. */
    #importersRefs(): ModuleRef[] {
      const all = [...this.modules.values()] as unknown as NestModuleLike[];
      const host = all.find((module) => module.getProviderByKey?.(ModuleRef)?.instance === this.moduleRef);
      if (host === undefined) return [];
      return all
        .filter((module) => module.imports?.has(host) === true)
        .map((module) => module.getProviderByKey?.(ModuleRef)?.instance)
        .filter((ref): ref is ModuleRef => ref instanceof ModuleRef);
    }
  }
  return KirimbayarConsoleGuards;
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const firstLine = message.split("\n").find((line) => line.trim() !== "") ?? message;
  return firstLine.trim().replace(/([^.])$/, "$1.");
}

function describe(value: unknown): string {
  if (value === null) return "null";
  return typeof value === "object" ? `an object without canActivate` : `a ${typeof value}`;
}
