import { type ChildProcess, spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import {
  OrderWebhookClient,
  PaymentGatewayClient,
  QrisClient,
  ShippingClient,
  ShippingProClient,
  ShippingStarterClient,
} from "@kirimbayar/core";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { isLoopbackHost } from "../src/cli/serve.js";

const bin = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const children: ChildProcess[] = [];
const servers: Server[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGTERM");
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

beforeAll(async () => {
  const { access } = await import("node:fs/promises");
  // The bin is a build output: fail with a clear message rather than a spawn error.
  await access(bin).catch(() => {
    throw new Error("dist/cli.js is missing: run `pnpm --filter @kirimbayar/testing build` first");
  });
});

function run(args: string[]): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitFor(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the CLI");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function receiver(status = 200) {
  const seen: { url: string; headers: IncomingMessage["headers"]; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on("end", () => {
      seen.push({ url: request.url ?? "", headers: request.headers, body });
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify({ success: status === 200, message: status === 200 ? "received" : "nope" }));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe("kirimbayar-fake CLI", () => {
  it("serve prints a banner with base URLs and keys, answers requests, and stops on SIGTERM", async () => {
    const port = await freePort();
    const cli = run(["serve", "--port", String(port)]);
    await waitFor(() => cli.output().includes("Press Ctrl+C"));
    expect(cli.output()).toContain(`listening on http://127.0.0.1:${port}`);
    expect(cli.output()).toContain("test_qris_key");
    expect(cli.output()).toMatch(/ShippingClient\s+baseUrl http:\/\/127\.0\.0\.1:\d+\s+apiKey test_shipping_key/);
    expect(cli.output()).toContain(
      `Simulator page (pay, expire, cancel, move the clock, watch webhooks): http://127.0.0.1:${port}/__fake/simulator`,
    );
    expect(cli.output()).not.toContain("WARNING");
    const response = await fetch(`http://127.0.0.1:${port}/user/api/v1/qr/generate-qris`, {
      method: "POST",
      headers: { "X-API-Key": "test_qris_key", "content-type": "application/json" },
      body: JSON.stringify({ qris_id: 1, amount: 25_000, output_type: "string" }),
    });
    const generated = await response.json();
    expect(generated.data.original_amount).toBe(25_000);
    const paid = await fetch(`http://127.0.0.1:${port}/__fake/qris/pay`, {
      method: "POST",
      body: JSON.stringify({ history_id: generated.data.history_id }),
    });
    expect((await paid.json()).status).toBe("paid");
    cli.child.kill("SIGTERM");
    expect(await cli.exited).toBe(0);
  });

  it("serve prints a baseUrl and apiKey per client that work as printed", async () => {
    const port = await freePort();
    const cli = run(["serve", "--port", String(port), "--qris-webhook-url", "http://127.0.0.1:9/unused"]);
    await waitFor(() => cli.output().includes("Press Ctrl+C"));
    // Each client is built from the banner's own words: the line's baseUrl and apiKey, nothing added.
    const printed = new Map(
      [...cli.output().matchAll(/^\s+(\w+Client)\s+baseUrl (\S+)\s+apiKey (\S+)/gm)].map(
        ([, client, baseUrl, apiKey]) => [client, { baseUrl: baseUrl ?? "", apiKey: apiKey ?? "" }],
      ),
    );
    expect([...printed.keys()]).toEqual([
      "PaymentGatewayClient",
      "QrisClient",
      "ShippingClient",
      "ShippingProClient",
      "ShippingStarterClient",
      "OrderWebhookClient",
    ]);
    const options = (client: string) => ({ ...printed.get(client)!, maxRetries: 0 });
    const payment = new PaymentGatewayClient(options("PaymentGatewayClient"));
    expect((await payment.listMethods()).data.length).toBeGreaterThan(0);
    const created = await payment.createPayment({
      order_id: "INV-CLI-1",
      payment_type: "bank_transfer",
      channel_code: "BCA",
      amount: 150_000,
      customer: { name: "Budi", email: "budi@example.co.id", phone: "081234567890" },
      items: [{ name: "Kaos", quantity: 1, price: 150_000 }],
    });
    expect((await payment.getPaymentStatus(String(created.data.payment_id))).data.status).toBe("PENDING");
    const qris = new QrisClient(options("QrisClient"));
    const code = await qris.generateQris({ qris_id: 1, amount: 25_000, output_type: "string" });
    expect((await qris.getQrisPaymentStatus(String(code.data.history_id))).data.payment_status).toBe("unpaid");
    const shipping = new ShippingClient(options("ShippingClient"));
    expect((await shipping.searchDomesticDestinations({ search: "braga" })).data[0]?.label).toMatch(/BRAGA/);
    const pro = new ShippingProClient(options("ShippingProClient"));
    expect((await pro.listProvinces()).data.length).toBeGreaterThan(30);
    const starter = new ShippingStarterClient(options("ShippingStarterClient"));
    expect((await starter.listProvinces()).data.length).toBeGreaterThan(30);
    const orders = new OrderWebhookClient(options("OrderWebhookClient"));
    await orders.registerWebhook({ url: "http://127.0.0.1:9/webhooks/orders" });
    const state = await (await fetch(`http://127.0.0.1:${port}/__fake/state`)).json();
    expect(JSON.stringify(state)).toContain("http://127.0.0.1:9/webhooks/orders");
    cli.child.kill("SIGTERM");
    expect(await cli.exited).toBe(0);
  });

  it("serve makes new ids on every start, or the seed's with --ids seeded", async () => {
    const firstHistoryId = async (args: string[]) => {
      const port = await freePort();
      const cli = run(["serve", "--port", String(port), ...args]);
      await waitFor(() => cli.output().includes("Press Ctrl+C"));
      const qris = new QrisClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "test_qris_key" });
      const { data } = await qris.generateQris({ qris_id: 1, amount: 25_000, output_type: "string" });
      cli.child.kill("SIGTERM");
      await cli.exited;
      return data.history_id;
    };
    const unique = [await firstHistoryId([]), await firstHistoryId([])];
    expect(unique[0]).not.toBe(unique[1]);
    const seeded = [await firstHistoryId(["--ids", "seeded"]), await firstHistoryId(["--ids", "seeded"])];
    expect(seeded[0]).toBe(seeded[1]);
    const bad = run(["serve", "--ids", "random"]);
    expect(await bad.exited).not.toBe(0);
    expect(bad.output()).toMatch(/--ids.*random.*unique, seeded/s);
  });

  it("serve --host warns before binding to an address other machines can reach", async () => {
    // 192.0.2.1 (TEST-NET-1) is on no interface here: the warning is printed, then listening fails.
    const cli = run(["serve", "--host", "192.0.2.1", "--port", "0"]);
    expect(await cli.exited).toBe(2);
    expect(cli.output()).toContain("WARNING: binding to 192.0.2.1 exposes a fake payment provider to other machines");
    expect(cli.output()).toMatch(/kirimbayar-fake: listen EADDRNOTAVAIL/);
    expect(["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"].every(isLoopbackHost)).toBe(true);
    expect(["0.0.0.0", "::", "192.168.1.10", "my-laptop.local"].some(isLoopbackHost)).toBe(false);
  });

  it("trigger payment.success sends a valid QR event with the token and prints the response", async () => {
    const app = await receiver();
    const cli = run([
      "trigger",
      "payment.success",
      "--to",
      `${app.url}/webhooks/qris`,
      "--token",
      "s3cret-token",
      "--amount",
      "100123",
    ]);
    expect(await cli.exited).toBe(0);
    expect(app.seen).toHaveLength(1);
    expect(app.seen[0]?.url).toBe("/webhooks/qris?token=s3cret-token");
    expect(JSON.parse(app.seen[0]?.body ?? "")).toMatchObject({
      event: "payment.success",
      data: { amount: 100_123, status: "paid" },
    });
    expect(cli.output()).toContain("< 200 OK");
    expect(cli.output()).toContain('{"success":true,"message":"received"}');
    expect(cli.output()).not.toContain("s3cret-token");
  });

  it("trigger payment.callback signs the body with --callback-key; order.status takes --status", async () => {
    const app = await receiver();
    const callback = run([
      "trigger",
      "payment.callback",
      "--to",
      `${app.url}/webhooks/payment`,
      "--callback-key",
      "cb-secret-key",
    ]);
    expect(await callback.exited).toBe(0);
    const [sent] = app.seen;
    expect(sent?.headers["x-callback-api-key"]).toBe(
      createHmac("sha256", "cb-secret-key")
        .update(sent?.body ?? "")
        .digest("hex"),
    );
    expect(callback.output()).not.toContain("cb-secret-key");
    const order = run(["trigger", "order.status", "--to", `${app.url}/webhooks/orders`, "--status", "Selesai"]);
    expect(await order.exited).toBe(0);
    expect(JSON.parse(app.seen[1]?.body ?? "")).toMatchObject({ status: "Selesai" });
  });

  it("exits non-zero when the app refuses the webhook or the event is unknown", async () => {
    const app = await receiver(401);
    const refused = run(["trigger", "payment.expired", "--to", `${app.url}/webhooks/qris`]);
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toContain("< 401");
    const unknown = run(["trigger", "payment.refunded", "--to", app.url]);
    expect(await unknown.exited).not.toBe(0);
    expect(unknown.output()).toMatch(/payment\.refunded/);
    const noKey = run(["trigger", "payment.callback", "--to", app.url]);
    expect(await noKey.exited).toBe(2);
    expect(noKey.output()).toMatch(/--callback-key/);
  });
});
