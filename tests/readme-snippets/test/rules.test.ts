// The snippet test's rules on small documents written here: each rule must catch what it is for, so that a green
// run over the repository's Markdown means something.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fencedBlocks, installLines, installPointers, packageNameOf, strayMarkers } from "./documents.js";
import { requirementsOf, withRequiredPeers } from "./requirements.js";
import { type Snippet, type SnippetFacts, snippetOf } from "./snippets.js";
import { dialectProblems, dialectsOf, sqlStatements } from "./sql.js";

const md = (...lines: string[]) => lines.join("\n");
const snippet = (code: string, language = "ts"): Snippet => {
  const [block] = fencedBlocks("doc.md", md(`\`\`\`${language}`, code, "```"));
  if (block === undefined) throw new Error("no block");
  return snippetOf(block);
};
const noFacts: SnippetFacts = {
  modules: new Set(),
  typesPackages: new Set(),
  placeholders: new Set(),
  declared: new Map(),
};

describe("fenced blocks", () => {
  it("reads every fence CommonMark reads: backticks or tildes, longer fences, indented ones, info strings, CRLF", () => {
    const text = md(
      "```ts title=app.ts {2}",
      "const a = 1;",
      "```",
      "~~~javascript",
      "const b = 2;",
      "~~~",
      "````tsx",
      "```",
      "const c = <div />;",
      "````",
      "- a list item:",
      "",
      "   ```mjs",
      "   export const d = 4;",
      "   ```",
      "```",
      "no language",
      "```",
    ).replaceAll("\n", "\r\n");
    const blocks = fencedBlocks("doc.md", text);
    expect(blocks.map((b) => [b.language, b.kind, b.line])).toEqual([
      ["ts", "ts", 2],
      ["javascript", "js", 5],
      ["tsx", "ts", 8],
      ["mjs", "js", 14],
      ["", "none", 17],
    ]);
    expect(blocks[2]?.code).toBe("```\nconst c = <div />;");
    expect(blocks[3]?.code).toBe("export const d = 4;");
  });

  it("knows shell, SQL and data from code, and flags a language it does not know", () => {
    const kinds = fencedBlocks("doc.md", md("```sh", "x", "```", "```sql", "x", "```", "```rust", "x", "```"));
    expect(kinds.map((b) => b.kind)).toEqual(["other", "other", "unknown"]);
  });

  it("honours a skip marker with its reason right above a checked block, and nothing else", () => {
    const text = md(
      "<!-- snippet-check: skip: an outline with its handlers elided on purpose -->",
      "",
      "```ts",
      "app.setErrorHandler(...);",
      "```",
      "<!-- snippet-check: skip -->",
      "```ts",
      "x",
      "```",
      "<!-- snippet-check: skip: a shell block needs no marker at all, this one is stray -->",
      "```sh",
      "npm test",
      "```",
      "Inline `<!-- snippet-check: skip: mentioned in prose is not a marker -->` text.",
    );
    const blocks = fencedBlocks("doc.md", text);
    expect(blocks[0]?.skipReason).toBe("an outline with its handlers elided on purpose");
    expect(blocks[1]?.skipReason).toBeUndefined();
    expect(blocks[1]?.skipWithoutReason).toBe(true);
    expect(strayMarkers("doc.md", text, blocks)).toEqual([
      "doc.md:10: a snippet-check skip marker must stand right above a ts or js block",
    ]);
  });
});

describe("install lines", () => {
  it("reads npm, pnpm, yarn and bun installs, skips flags and versions, and takes `# or:` alternatives", () => {
    const [block] = fencedBlocks(
      "doc.md",
      md(
        "```sh",
        "npm install @kirimbayar/core zod@4 && npm install -D @types/pg   # or: mysql2 (MySQL)",
        "pnpm add --save-dev vitest; yarn add hono",
        "npx -y pnpm@10.34.9 install --frozen-lockfile",
        "npm test",
        "bun add @kirimbayar/hono",
        "```",
      ),
    );
    expect(installLines(block as never).map((line) => line.packages)).toEqual([
      ["@kirimbayar/core", "zod", "@types/pg", "mysql2"],
      ["vitest", "hono"],
      ["@kirimbayar/hono"],
    ]);
    expect(packageNameOf("@scope/name@^1.2")).toBe("@scope/name");
  });

  it("follows a link only from a sentence that says install, to a document that exists", () => {
    const repo = mkdtempSync(join(tmpdir(), "snippet-rules-"));
    try {
      mkdirSync(join(repo, "docs/a"), { recursive: true });
      mkdirSync(join(repo, "packages/x"), { recursive: true });
      for (const file of ["docs/a/setup.md", "docs/a/other.md", "packages/x/README.md"]) {
        writeFileSync(join(repo, file), "# x");
      }
      const text = md(
        "Install it as [the setup page](setup.md) says. See also [other](other.md).",
        "",
        "Installed through [the package](../../packages/x/) or [a missing page](missing.md).",
        "",
        "```sh",
        "see [other](other.md) install",
        "```",
      );
      expect(installPointers(repo, "docs/a/page.md", text).sort()).toEqual(["docs/a/setup.md", "packages/x/README.md"]);
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });

  it("requires the drivers and platforms the code picks, and our packages' required peers", () => {
    const nest = snippet('await NestFactory.create(AppModule, { rawBody: true }); // type: "mysql"');
    const names = requirementsOf(nest, noFacts, new Map()).map((r) => r.name);
    expect(names).toEqual(["@nestjs/platform-express", "mysql2"]);
    const onFastify = snippet("await NestFactory.create(AppModule, new FastifyAdapter());");
    expect(requirementsOf(onFastify, noFacts, new Map()).map((r) => r.name)).toEqual(["@nestjs/platform-fastify"]);
    const withPeers = withRequiredPeers([{ name: "@kirimbayar/nestjs", why: "" }]).map((r) => r.name);
    expect(withPeers).toEqual(
      expect.arrayContaining(["@nestjs/common", "@nestjs/core", "reflect-metadata", "rxjs", "zod"]),
    );
    expect(withPeers).not.toContain("@kirimbayar/inbox"); // an optional peer
    expect(withRequiredPeers([{ name: "vitest", why: "" }]).map((r) => r.name)).toEqual(["vitest"]);
  });

  it("requires the library behind a placeholder, and the peer behind an entry point", () => {
    const facts: SnippetFacts = {
      ...noFacts,
      modules: new Set(["@kirimbayar/core/typeorm", "node:http"]),
      placeholders: new Set(["redis", "receiver"]),
    };
    const packages = new Map([
      ["redis", ["ioredis"]],
      ["receiver", ["@kirimbayar/core/webhooks"]],
    ]);
    expect(requirementsOf(snippet(""), facts, packages).map((r) => r.name)).toEqual([
      "@kirimbayar/core",
      "typeorm",
      "ioredis",
    ]);
  });
});

describe("SQL dialects", () => {
  const problemsOf = (code: string) => sqlStatements(snippet(code)).flatMap(dialectProblems);

  it("refuses $1 where the snippet names MySQL or MariaDB, even only in a comment", () => {
    const code = md(
      "const store = new PostgresIdempotencyStore({ pool }); // MySQL: MysqlIdempotencyStore",
      "await ctx.transaction.query(\"UPDATE orders SET status = 'paid' WHERE id = $1\", [id]);",
    );
    expect(dialectsOf(code)).toEqual(new Set(["postgres", "mysql"]));
    expect(problemsOf(code)).toEqual([
      expect.stringContaining("doc.md:3: the snippet is for MySQL or MariaDB too, where $1 is no placeholder"),
    ]);
  });

  it("refuses ? on PostgreSQL, and bind placeholders where no database is named", () => {
    expect(problemsOf('import pg from "pg";\nawait client.query("SELECT 1 WHERE x = ?", [1]);')).toEqual([
      expect.stringContaining("where ? is no placeholder (pg binds $1)"),
    ]);
    expect(problemsOf('await tx.query("DELETE FROM t WHERE id = $1", [1]);')).toEqual([
      expect.stringContaining("the snippet names no database"),
    ]);
  });

  it("accepts each driver's own placeholders, quoted question marks, and Knex's ? on any database", () => {
    expect(
      problemsOf('import mysql from "mysql2/promise";\nawait c.execute("UPDATE t SET a = \'?\' WHERE id = ?", [1]);'),
    ).toEqual([]);
    expect(problemsOf('import pg from "pg";\nawait c.query("UPDATE t SET a = $1 WHERE b = \'?\'", [1]);')).toEqual([]);
    expect(
      problemsOf('import knex from "knex";\nawait db.raw("SELECT * FROM t WHERE id = ?", [1]); // postgres://'),
    ).toEqual([]);
    expect(problemsOf('import knex from "knex";\nawait db.raw("SELECT * FROM t WHERE id = $1", [1]);')).toEqual([
      expect.stringContaining("Knex binds with ?"),
    ]);
  });

  it("refuses the other database's identifier quotes", () => {
    expect(problemsOf('import mysql from "mysql2/promise";\nawait c.query(\'DROP TABLE "orders"\');')).toEqual([
      expect.stringContaining("are strings on MySQL and MariaDB"),
    ]);
    expect(problemsOf('import pg from "pg";\nawait c.query("DROP TABLE `orders`");')).toEqual([
      expect.stringContaining("PostgreSQL quotes identifiers"),
    ]);
  });
});
