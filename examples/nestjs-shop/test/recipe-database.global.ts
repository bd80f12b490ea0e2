// Points the NestJS testing recipe (test/recipe, docs/guides/testing/nestjs.md) at a database: the one in
// TEST_DATABASE_URL when set, as in a shop's CI, or else a throw-away PostgreSQL server started here.
import { startPostgresServer } from "@kirimbayar/test-postgres-server";

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.TEST_DATABASE_URL) return undefined;
  const server = await startPostgresServer();
  process.env.TEST_DATABASE_URL = server.url;
  return () => server.destroy();
}
