// What a reader must install to run a document's snippets: the packages they import, the packages behind the
// placeholders they use, the optional peers of the entry points they import, the drivers and platforms their code
// picks, and the required peers of all of those.
import { existsSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { packageOfSpecifier } from "./documents.js";
import type { Snippet, SnippetFacts } from "./snippets.js";

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const repo = join(packageDir, "../..");

export interface Requirement {
  readonly name: string;
  /** Why, for the message: `imports "pg" (line 12)`. */
  readonly why: string;
}

/**
 * The optional peers an entry point needs: importing it means using that library. Kept true by the test (each one
 * must be an optional peer of the package) and complete (every optional peer of a package is here or in
 * {@link PEERS_NOT_TIED_TO_AN_ENTRY}).
 */
export const ENTRY_PEERS: Readonly<Record<string, readonly string[]>> = {
  "@kirimbayar/core/prisma": ["@prisma/client"],
  "@kirimbayar/core/typeorm": ["typeorm"],
  "@kirimbayar/core/knex": ["knex"],
  "@kirimbayar/core/kysely": ["kysely"],
  "@kirimbayar/core/drizzle": ["drizzle-orm"],
  "@kirimbayar/core/sequelize": ["sequelize"],
  "@kirimbayar/inbox/pg-boss": ["pg-boss"],
  "@kirimbayar/inbox/bullmq": ["bullmq"],
  "@kirimbayar/testing/msw": ["msw"],
};
/** Optional peers needed only for an option, not by importing an entry (`inbox` of the NestJS module, its platform). */
export const PEERS_NOT_TIED_TO_AN_ENTRY: Readonly<Record<string, readonly string[]>> = {
  "@kirimbayar/inbox": ["ioredis"], // the CLI's BullMQ engine
  "@kirimbayar/nestjs": ["@kirimbayar/inbox", "@nestjs/platform-fastify"],
};

interface Implied {
  readonly when: RegExp;
  readonly unless?: RegExp;
  readonly packages: readonly string[];
  readonly why: string;
}

/**
 * Packages the code needs without importing them: the driver an ORM loads for the database it is given, the platform
 * NestJS loads. Read in comments too, since a comment such as `new DataSource({ type: "mysql", … })` is code the
 * reader is told to write.
 */
const IMPLIED: readonly Implied[] = [
  {
    when: /\bNestFactory\.create\b/,
    unless: /FastifyAdapter/,
    packages: ["@nestjs/platform-express"],
    why: "NestFactory.create on NestJS's default (Express) platform",
  },
  { when: /\bFastifyAdapter\b/, packages: ["@nestjs/platform-fastify"], why: "NestJS's FastifyAdapter" },
  { when: /\btype:\s*"postgres"/, packages: ["pg"], why: 'a TypeORM DataSource of type "postgres"' },
  { when: /\btype:\s*"(?:mysql|mariadb)"/, packages: ["mysql2"], why: 'a TypeORM DataSource of type "mysql"' },
  { when: /\bclient:\s*"pg"/, packages: ["pg"], why: 'Knex with client "pg"' },
  { when: /\bclient:\s*"mysql2"/, packages: ["mysql2"], why: 'Knex with client "mysql2"' },
  { when: /drizzle-orm\/node-postgres/, packages: ["pg"], why: "drizzle-orm/node-postgres" },
  { when: /drizzle-orm\/mysql2/, packages: ["mysql2"], why: "drizzle-orm/mysql2" },
  { when: /\bnew PrismaPg\b/, packages: ["@prisma/adapter-pg"], why: "Prisma's PrismaPg adapter" },
  { when: /\bPrismaMariaDb\b/, packages: ["@prisma/adapter-mariadb"], why: "Prisma's PrismaMariaDb adapter" },
  { when: /\bnew PrismaClient\b/, packages: ["@prisma/client"], why: "a PrismaClient" },
  {
    when: /\bnew Sequelize\b[\s\S]*(?:MysqlIdempotencyStore|mysql:\/\/)|(?:MysqlIdempotencyStore|mysql:\/\/)[\s\S]*\bnew Sequelize\b/,
    packages: ["mysql2"],
    why: "Sequelize on MySQL",
  },
  {
    when: /\bnew Sequelize\b[\s\S]*(?:PostgresIdempotencyStore|postgres:\/\/)|(?:PostgresIdempotencyStore|postgres:\/\/)[\s\S]*\bnew Sequelize\b/,
    packages: ["pg", "pg-hstore"],
    why: "Sequelize on PostgreSQL",
  },
];

const isBuiltin = (name: string) => name.startsWith("node:") || builtinModules.includes(name);

/** What one snippet needs. */
export function requirementsOf(
  snippet: Snippet,
  facts: SnippetFacts,
  placeholderPackages: ReadonlyMap<string, readonly string[]>,
): Requirement[] {
  const where = `${snippet.doc}:${snippet.line}`;
  const found: Requirement[] = [];
  for (const specifier of facts.modules) {
    if (isBuiltin(specifier)) continue;
    found.push({ name: packageOfSpecifier(specifier), why: `imports "${specifier}" (${where})` });
    for (const peer of ENTRY_PEERS[specifier] ?? []) {
      found.push({ name: peer, why: `"${specifier}" runs on ${peer} (${where})` });
    }
  }
  for (const types of facts.typesPackages) {
    found.push({ name: types, why: `its TypeScript gets the types of its imports from ${types} (${where})` });
  }
  for (const placeholder of facts.placeholders) {
    for (const specifier of placeholderPackages.get(placeholder) ?? []) {
      // An object of our own packages (a receiver, a store, an inbox) was built as another page shows, with what
      // that page installs; a library's object (a Redis client, a DataSource) is one the reader must install.
      if (isBuiltin(specifier) || specifier.startsWith("@kirimbayar/")) continue;
      const name = packageOfSpecifier(specifier);
      found.push({ name, why: `\`${placeholder}\` stands for your own ${name} object (${where})` });
    }
  }
  for (const rule of IMPLIED) {
    if (!rule.when.test(snippet.code) || rule.unless?.test(snippet.code)) continue;
    for (const name of rule.packages) found.push({ name, why: `${rule.why} (${where})` });
  }
  if (snippet.jest) found.push({ name: "jest", why: `runs under Jest (${where})` });
  return found;
}

interface PackageJson {
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** A package's manifest: the workspace's for @kirimbayar/*, else as installed here; undefined when not installed. */
export function manifestOf(name: string): PackageJson | undefined {
  const candidates = name.startsWith("@kirimbayar/")
    ? [join(repo, "packages", name.slice("@kirimbayar/".length), "package.json")]
    : [join(packageDir, "node_modules", name, "package.json"), join(repo, "node_modules", name, "package.json")];
  const path = candidates.find((candidate) => existsSync(candidate));
  return path === undefined ? undefined : (JSON.parse(readFileSync(path, "utf8")) as PackageJson);
}

/** The peers a package cannot run without (its peers not marked optional). */
export function requiredPeersOf(name: string): string[] {
  const manifest = manifestOf(name);
  return Object.keys(manifest?.peerDependencies ?? {}).filter(
    (peer) => manifest?.peerDependenciesMeta?.[peer]?.optional !== true,
  );
}

/**
 * The requirements, with the required peers of each of our packages required (and theirs) added. Other libraries'
 * peers are their own documentation's business: npm and pnpm install required peers themselves, and a page listing
 * `vite` for vitest or `@types/node` for mysql2 would help nobody.
 */
export function withRequiredPeers(requirements: readonly Requirement[]): Requirement[] {
  const all = [...requirements];
  const seen = new Set(all.map((r) => r.name));
  for (let i = 0; i < all.length; i++) {
    const { name } = all[i] as Requirement;
    if (!name.startsWith("@kirimbayar/")) continue;
    for (const peer of requiredPeersOf(name)) {
      if (seen.has(peer)) continue;
      seen.add(peer);
      all.push({ name: peer, why: `a required peer of ${name}` });
    }
  }
  return all;
}
