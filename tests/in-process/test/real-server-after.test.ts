// An app a test feeds in process stays an ordinary app: the same Express app still serves real HTTP afterwards.
// (light-my-request's Express support rewires Express's shared request and response prototypes, after which a real
// request crashes the process; the helpers use Node's own HTTP server over an in-memory connection instead.)
import type { AddressInfo } from "node:net";
import { expressFetch } from "@kirimbayar/testing/express";
import express from "express";
import { expect, it } from "vitest";

it("an Express app fed through expressFetch still answers real HTTP requests, and new apps do too", async () => {
  const build = () => {
    const app = express();
    app.post("/echo", express.text({ type: "*/*" }), (req, res) => {
      res.json({ got: req.body, ip: req.ip });
    });
    return app;
  };
  const app = build();
  const inProcess = await expressFetch(app, { remoteAddress: "198.51.100.4" })("http://shop.test/echo", {
    method: "POST",
    body: "in process",
  });
  expect(await inProcess.json()).toEqual({ got: "in process", ip: "198.51.100.4" });
  for (const served of [app, build()]) {
    const server = served.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const real = await fetch(`http://127.0.0.1:${port}/echo`, { method: "POST", body: "over a socket" });
      expect(await real.json()).toEqual({ got: "over a socket", ip: "127.0.0.1" });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }
});
