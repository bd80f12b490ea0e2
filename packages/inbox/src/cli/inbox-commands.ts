import { Command } from "commander";
import type { DeadLetter } from "../types.js";
import { type InboxTarget, type OpenInbox, openInbox } from "./open-inbox.js";

/** Where the commands write, and how they open the inbox (tests pass their own). */
export interface CliIo {
  out(line: string): void;
  open?: (target: InboxTarget) => Promise<OpenInbox>;
}

/**
 * `kirimbayar inbox list|show|replay|stats`: look at dead letters and replay them after fixing their cause. A replay
 * goes through the idempotency store like any event: one applied meanwhile is not applied again.
 */
export function inboxCommand(io: CliIo): Command {
  const inbox = new Command("inbox").description("Dead letters of the durable webhook inbox: list, show, replay.");
  const withTarget = (command: Command) =>
    command
      .option("--url <url>", "postgres:// (pg-boss) or redis:// (BullMQ); default $KIRIMBAYAR_INBOX_URL")
      .option("--engine <engine>", "pg-boss or bullmq (default: from the URL)")
      .option("--queue <name>", "queue name", "kirimbayar-inbox")
      .option("--schema <schema>", "pg-boss schema", "pgboss")
      .option("--json", "print JSON");
  const run = async (options: Record<string, unknown>, work: (open: OpenInbox) => Promise<void>) => {
    const url = (options.url as string | undefined) ?? process.env.KIRIMBAYAR_INBOX_URL;
    if (!url) throw new Error("give --url or set KIRIMBAYAR_INBOX_URL");
    const target: InboxTarget = {
      url,
      queue: options.queue as string,
      schema: options.schema as string,
      ...(options.engine ? { engine: options.engine as string } : {}),
    };
    const open = await (io.open ?? openInbox)(target);
    try {
      await work(open);
    } finally {
      await open.close();
    }
  };

  withTarget(inbox.command("list").description("List dead letters, newest first."))
    .option("--limit <n>", "at most this many", "100")
    .action((options) =>
      run(options, async ({ inbox: queue }) => {
        const letters = await queue.listDeadLetters({ limit: Number(options.limit) });
        if (options.json) return io.out(JSON.stringify(letters.map(summary)));
        if (letters.length === 0) return io.out("No dead letters.");
        for (const letter of letters) {
          const last = letter.attempts.at(-1);
          io.out(
            `${letter.id}  ${letter.message.key}  ${letter.attempts.length} tries  ` +
              `dead ${new Date(letter.deadAt).toISOString()}  last error: ${last?.error ?? "-"}`,
          );
        }
      }),
    );

  withTarget(inbox.command("show").argument("<id>", "dead letter id").description("Show one dead letter.")).action(
    (id: string, options) =>
      run(options, async ({ inbox: queue }) => {
        const letter = await queue.getDeadLetter(id);
        if (letter === undefined) throw new Error(`no dead letter ${id}`);
        if (options.json) return io.out(JSON.stringify(letter));
        io.out(`id:       ${letter.id}`);
        io.out(`key:      ${letter.message.key}`);
        io.out(`source:   ${letter.message.source}`);
        io.out(`received: ${new Date(letter.message.receivedAt).toISOString()}`);
        io.out(`dead:     ${new Date(letter.deadAt).toISOString()}`);
        io.out("tries:");
        for (const attempt of letter.attempts) {
          io.out(`  #${attempt.attempt} ${new Date(attempt.at).toISOString()}  ${attempt.error}`);
        }
        io.out(`payload:  ${letter.message.body}`);
      }),
  );

  withTarget(
    inbox
      .command("replay")
      .argument("[id]", "dead letter id")
      .option("--all", "replay every dead letter")
      .description("Queue dead letters again (with a fresh retry period)."),
  ).action((id: string | undefined, options) =>
    run(options, async ({ inbox: queue }) => {
      if (options.all) return io.out(`Replayed ${await queue.replayAllDeadLetters()} dead letters.`);
      if (id === undefined) throw new Error("give a dead letter id, or --all");
      if (!(await queue.replayDeadLetter(id))) throw new Error(`no dead letter ${id}`);
      io.out(`Replayed ${id}.`);
    }),
  );

  withTarget(inbox.command("stats").description("Waiting, active and dead events.")).action((options) =>
    run(options, async ({ inbox: queue }) => {
      const stats = await queue.stats();
      if (options.json) return io.out(JSON.stringify(stats));
      io.out(
        `waiting ${stats.waiting}, active ${stats.active}, dead letters ${stats.deadLetters}` +
          (stats.oldestWaitingAgeMs === undefined
            ? ""
            : `, oldest waiting ${Math.round(stats.oldestWaitingAgeMs / 1000)} s`),
      );
    }),
  );
  return inbox;
}

function summary(letter: DeadLetter) {
  return {
    id: letter.id,
    key: letter.message.key,
    source: letter.message.source,
    attempts: letter.attempts.length,
    lastError: letter.attempts.at(-1)?.error,
    deadAt: letter.deadAt,
  };
}

/** The `kirimbayar` program. */
export function kirimbayarProgram(io: CliIo): Command {
  return new Command()
    .name("kirimbayar")
    .description("Operate kirimbayar: the durable webhook inbox.")
    .addCommand(inboxCommand(io))
    .exitOverride();
}
