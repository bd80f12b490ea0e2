#!/usr/bin/env node
// `kirimbayar`: operator commands. `kirimbayar inbox list|show|replay|stats` for the durable inbox's dead letters.
import { kirimbayarProgram } from "./cli/inbox-commands.js";

kirimbayarProgram({ out: (line) => console.log(line) })
  .parseAsync()
  .catch((error: unknown) => {
    const code = (error as { code?: string }).code;
    if (code === "commander.helpDisplayed" || code === "commander.version") return;
    if (typeof code !== "string" || !code.startsWith("commander.")) {
      console.error(`kirimbayar: ${error instanceof Error ? error.message : String(error)}`);
    }
    process.exitCode = 2;
  });
