#!/usr/bin/env node
// `kirimbayar-fake`: run the fake provider standalone, or send one fixture webhook to a local app.
import { Argument, Command, InvalidArgumentError, Option } from "commander";
import { serve } from "./cli/serve.js";
import { TRIGGER_EVENTS, trigger } from "./cli/trigger.js";

function integer(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError("must be a non-negative integer");
  return parsed;
}

const program = new Command()
  .name("kirimbayar-fake")
  .description("Fake payment, QRIS and shipping provider for local development and tests.");

program
  .command("serve")
  .description("Run the fake provider on a port (wall clock, control API and simulator page under /__fake).")
  .option("-p, --port <port>", "port to listen on", integer, 4010)
  .option(
    "--host <host>",
    "interface to bind (anything but loopback exposes the fake: a warning is printed)",
    "127.0.0.1",
  )
  .option("--seed <seed>", "seed of generated codes and amounts (and of ids with --ids seeded)", "1")
  .addOption(
    new Option("--ids <mode>", "unique: ids never repeat, across restarts too; seeded: ids drawn from --seed")
      .choices(["unique", "seeded"])
      .default("unique"),
  )
  .option("--api-key <key>", "accept this one key for every service instead of the defaults")
  .option("--qris-webhook-url <url>", "where QR payment events are sent")
  .option("--orders-webhook-url <url>", "where order-status events are sent before any registration")
  .action(async (options) => {
    const stop = await serve(
      options,
      (line) => console.log(line),
      (line) => console.error(line),
    );
    const shutdown = () => {
      void stop().then(() => process.exit(0));
    };
    process.once("SIGINT", shutdown);
    process.once("SIGTERM", shutdown);
  });

program
  .command("trigger")
  .description("Send one valid fixture webhook to a URL and print the response.")
  .addArgument(new Argument("<event>", "event to send").choices(TRIGGER_EVENTS))
  .requiredOption("--to <url>", "the receiving route, e.g. http://localhost:3000/webhooks/qris")
  .option("--token <token>", "appended to the URL as ?token=")
  .option("--callback-key <key>", "payment.callback: the callback_api_key to sign the body with (HMAC-SHA256, hex)")
  .option("--status <status>", "order.status: the status (default Dikirim); payment.callback: PAID, EXPIRED, ...")
  .option("--amount <rupiah>", "amount of the payment", integer)
  .option("--method <method>", "HTTP method (default POST)")
  .option("--seed <seed>", "seed of generated ids", String(Date.now()))
  .action(async (event: string, options) => {
    const status = await trigger(event, options, (line) => console.log(line));
    process.exitCode = status >= 200 && status < 300 ? 0 : 1;
  });

program.parseAsync().catch((error: unknown) => {
  console.error(`kirimbayar-fake: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 2;
});
