import { KirimbayarError } from "@kirimbayar/core";

/**
 * Thrown by `createWebhookConsole` when its options are wrong: no `authorize` function, no journal, a base path
 * that is not a plain path, a secret too short. The message names the option and never contains a secret.
 *
 * @example
 * try { createWebhookConsole({ journal, basePath: "/console" } as never) } catch (e) { e instanceof ConsoleConfigurationError } // true
 */
export class ConsoleConfigurationError extends KirimbayarError {
  /** The offending option, e.g. `"authorize"`. */
  readonly option: string;

  constructor(option: string, message: string) {
    super(message, { code: "console_configuration" });
    this.option = option;
  }
}
