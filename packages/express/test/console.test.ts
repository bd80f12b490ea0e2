import { createStandInConsole, STAND_IN_CONSOLE, standInFormPost } from "@kirimbayar/testing";
import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { consoleRouter, type MountableConsole } from "../src/index.js";

const { basePath, authorization: operator, cookies, contentSecurityPolicy } = STAND_IN_CONSOLE;

describe("consoleRouter", () => {
  it("hands a GET the full URL (mount prefix, Host, query) and writes status, CSP and every cookie back", async () => {
    const webConsole = createStandInConsole();
    const app = express().use(basePath, consoleRouter(webConsole));
    const response = await request(app)
      .get(`${basePath}/search?q=${encodeURIComponent("ORD-1 <x>")}`)
      .set("host", "shop.example:8080")
      .set("authorization", operator);
    expect(response.status).toBe(200);
    expect(response.headers["content-security-policy"]).toBe(contentSecurityPolicy);
    expect(response.headers["set-cookie"]).toEqual(cookies);
    expect(response.body.url).toBe("http://shop.example:8080/kirimbayar/console/search?q=ORD-1%20%3Cx%3E");
    expect(response.body.method).toBe("GET");
  });

  it("passes a form post's body and answers its redirect, with or without the app's body parsers first", async () => {
    const { form } = STAND_IN_CONSOLE;
    for (const parsers of [
      [],
      [express.json(), express.urlencoded({ extended: true })],
      [express.urlencoded({ extended: false })],
    ]) {
      const webConsole = createStandInConsole();
      const app = express();
      for (const parser of parsers) app.use(parser);
      app.use(basePath, consoleRouter(webConsole));
      const response = await request(app)
        .post(`${basePath}/dead-letters/replay`)
        .set("authorization", operator)
        .type("form")
        .send(form);
      expect(response.status).toBe(303);
      expect(response.headers.location).toBe(STAND_IN_CONSOLE.redirectLocation);
      expect(webConsole.seen).toEqual([
        standInFormPost(
          expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/kirimbayar\/console\/dead-letters\/replay$/),
        ),
      ]);
    }
  });

  it("answers every path under the mount point, the mount point itself included, and nothing outside it", async () => {
    const webConsole = createStandInConsole();
    const app = express()
      .use(basePath, consoleRouter(webConsole))
      .get("/shop", (_req, res) => void res.send("shop"));
    const root = await request(app).get(basePath).set("authorization", operator);
    expect(root.status).toBe(200);
    expect(root.body.url).toMatch(/\/kirimbayar\/console$/);
    expect((await request(app).get(`${basePath}/sources/qris`).set("authorization", operator)).status).toBe(200);
    expect((await request(app).get("/shop")).text).toBe("shop");
    expect(webConsole.seen.map((seen) => new URL(seen.url).pathname)).toEqual([basePath, `${basePath}/sources/qris`]);
  });

  it("refuses who the console refuses, and never lets a body past the limit reach it", async () => {
    const webConsole = createStandInConsole();
    const app = express().use(basePath, consoleRouter(webConsole, { maxBodyBytes: 64 }));
    const anonymous = await request(app).get(basePath);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers["www-authenticate"]).toBe(STAND_IN_CONSOLE.wwwAuthenticate);
    const large = await request(app)
      .post(`${basePath}/reconcile`)
      .set("authorization", operator)
      .type("form")
      .send(`q=${"x".repeat(100)}`);
    expect(large.status).toBe(413);
    // Read by a parser first (its own limit is larger): still refused.
    const parsedFirst = express()
      .use(express.urlencoded({ extended: false }))
      .use(basePath, consoleRouter(webConsole, { maxBodyBytes: 64 }));
    const parsedLarge = await request(parsedFirst)
      .post(`${basePath}/reconcile`)
      .set("authorization", operator)
      .type("form")
      .send(`q=${"x".repeat(100)}`);
    expect(parsedLarge.status).toBe(413);
    expect(webConsole.seen).toEqual([]);
  });

  it("answers HEAD with the headers and no body, and hands a thrown error to Express's error handling", async () => {
    const app = express().use(basePath, consoleRouter(createStandInConsole()));
    const head = await request(app).head(basePath).set("authorization", operator);
    expect(head.status).toBe(200);
    expect(head.headers["content-security-policy"]).toBe(contentSecurityPolicy);
    expect(head.text).toBeUndefined();
    const failing: MountableConsole = {
      basePath,
      fetch: () => Promise.reject(new Error("journal down")),
    };
    const broken = express()
      .use(basePath, consoleRouter(failing))
      .use((_error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
        res.status(503).send("console unavailable");
      });
    const answer = await request(broken).get(basePath);
    expect(answer.status).toBe(503);
    expect(answer.text).toBe("console unavailable");
  });
});
