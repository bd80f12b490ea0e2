// The Fastify shop behind nginx, its records in PostgreSQL beside its orders (transactional handlers): a rolling deploy.
import { describe } from "vitest";
import { rollingDeployTests } from "./support/suite.js";

describe("rolling deploy: Fastify shop, nginx, PostgreSQL records", () => {
  rollingDeployTests({ framework: "fastify", loadBalancer: "nginx", records: "postgres" });
});
