// startRedisServer({ tls }) with createTestCertificates(): the TLS port speaks TLS with a certificate the CA vouches
// for (a client that does not trust the CA is refused), and a password-protected server still counts as started.
import { readFileSync } from "node:fs";
import { connect } from "node:tls";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestCertificates, startRedisServer, type TestCertificates, type TestRedisServer } from "../index.js";

let certificates: TestCertificates;
let redis: TestRedisServer;

beforeAll(async () => {
  certificates = await createTestCertificates();
  redis = await startRedisServer({ tls: certificates, args: ["--requirepass", "secret"] });
}, 30_000);

afterAll(async () => {
  await redis?.stop();
  await certificates?.remove();
});

function tlsCommand(options: { ca?: Buffer }, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: redis.tlsPort as number, ...options }, () =>
      socket.write(command),
    );
    socket.once("data", (data) => {
      socket.destroy();
      resolve(data.toString().split("\r\n")[0] as string);
    });
    socket.once("error", reject);
  });
}

it("serves TLS on tlsPort with a certificate the test CA signed, behind the password", async () => {
  expect(redis.tlsUrl).toBe(`rediss://127.0.0.1:${redis.tlsPort}`);
  const ca = readFileSync(certificates.ca);
  expect(await tlsCommand({ ca }, "PING\r\n")).toMatch(/^-NOAUTH/);
  expect(await tlsCommand({ ca }, "AUTH secret\r\n")).toBe("+OK");
  await expect(tlsCommand({}, "PING\r\n")).rejects.toThrow(/self[- ]signed|unable to verify|certificate/i);
});
