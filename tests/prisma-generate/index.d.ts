export interface GeneratePrismaClientOptions {
  /**
   * A file the generation (or what the caller builds from it) writes: when it is newer than the schema, nothing is
   * generated. Default: `generated/client.ts` beside the schema (the schema's generator `output`).
   */
  readonly marker?: string;
}

/**
 * Generates the Prisma client of `schema` offline, unless `marker` is newer than the schema. Resolves `prisma` from
 * the schema's folder. Returns whether it generated.
 *
 * @example
 * generatePrismaClient(join(here, "schema.prisma"));
 */
export function generatePrismaClient(schema: string, options?: GeneratePrismaClientOptions): boolean;
