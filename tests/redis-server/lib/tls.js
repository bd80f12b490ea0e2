// A throw-away certificate authority and a server certificate for 127.0.0.1, made with the openssl command line, so
// a test can run redis-server with TLS only (as managed Redis services do) and check the clients' certificates.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * Writes `ca.crt`, `server.crt` and `server.key` (for IP 127.0.0.1 and localhost, valid one day) in a new temp
 * dir; `remove()` deletes it. Needs `openssl` on PATH.
 */
export async function createTestCertificates() {
  const dir = await mkdtemp(join(tmpdir(), "kirimbayar-tls-"));
  const file = (name) => join(dir, name);
  const openssl = async (args) => {
    try {
      await run("openssl", args, { timeout: 30_000 });
    } catch (error) {
      throw new Error(`openssl ${args[0]} failed (is openssl installed?): ${error.message}`, { cause: error });
    }
  };
  await openssl([
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    file("ca.key"),
    "-out",
    file("ca.crt"),
    "-days",
    "1",
    "-subj",
    "/CN=kirimbayar test CA",
  ]);
  await openssl([
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    file("server.key"),
    "-out",
    file("server.csr"),
    "-subj",
    "/CN=127.0.0.1",
  ]);
  await writeFile(file("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  await openssl([
    "x509",
    "-req",
    "-in",
    file("server.csr"),
    "-CA",
    file("ca.crt"),
    "-CAkey",
    file("ca.key"),
    "-CAcreateserial",
    "-out",
    file("server.crt"),
    "-days",
    "1",
    "-extfile",
    file("server.ext"),
  ]);
  return {
    dir,
    ca: file("ca.crt"),
    cert: file("server.crt"),
    key: file("server.key"),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
