import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

const require = createRequire(import.meta.url);

type CompiledModule = NonNullable<PGliteOptions["pgliteWasmModule"]>;

/** A fresh database's files and PGlite's compiled modules, made once per process. */
interface PGliteTemplate {
  pgliteWasmModule: CompiledModule;
  initdbWasmModule: CompiledModule;
  dataDir: Blob;
}

// WebAssembly is a global of every runtime the examples run on; the examples' TypeScript libs (Node's types, no DOM)
// do not declare it.
const { WebAssembly: wasm } = globalThis as unknown as {
  WebAssembly: { compile(bytes: Uint8Array): Promise<CompiledModule> };
};

let template: Promise<PGliteTemplate> | undefined;

// PGlite runs initdb for every new in-memory database: seconds of CPU (over ten on a busy two-core machine). A shop
// started again and again (each test starts one) copies the files of the first fresh database instead.
function pgliteTemplate(): Promise<PGliteTemplate> {
  template ??= (async () => {
    const compile = async (file: string) => wasm.compile(await readFile(require.resolve(file)));
    const pgliteWasmModule = await compile("@electric-sql/pglite/pglite.wasm");
    const initdbWasmModule = await compile("@electric-sql/pglite/initdb.wasm");
    const first = await PGlite.create({ pgliteWasmModule, initdbWasmModule });
    const dataDir = await first.dumpDataDir("none");
    await first.close();
    return { pgliteWasmModule, initdbWasmModule, dataDir };
  })();
  template.catch(() => {
    template = undefined;
  });
  return template;
}

/** An in-process PostgreSQL (PGlite) that ORMs reach over the wire protocol, as they would a server. */
export interface EmbeddedPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`, for TypeORM, Prisma's `pg` adapter or `pg` itself. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Starts PGlite behind `pglite-socket` on a free loopback port: the example shops' database when no `DATABASE_URL`
 * is set, so the demo and the tests need no server. PGlite is one connection; the socket server multiplexes the
 * ORM's connections onto it and runs their transactions one after another (a disconnected client's open
 * transaction is rolled back, as a server would). For development and tests only.
 *
 * @example
 * const database = await startEmbeddedPostgres();
 * const dataSource = new DataSource({ type: "postgres", url: database.url });
 */
export async function startEmbeddedPostgres(): Promise<EmbeddedPostgres> {
  const { dataDir, ...modules } = await pgliteTemplate();
  const db = await PGlite.create({ ...modules, loadDataDir: dataDir });
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 20 });
  try {
    await server.start();
  } catch (error) {
    await db.close();
    throw error;
  }
  const port = Number(String(server.getServerConn()).split(":").pop());
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}
