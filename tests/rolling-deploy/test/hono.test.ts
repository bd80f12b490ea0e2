// The Hono shop behind haproxy, its records in PostgreSQL beside its orders (transactional handlers): a rolling deploy.
import { describe } from "vitest";
import { rollingDeployTests } from "./support/suite.js";

describe("rolling deploy: Hono shop, haproxy, PostgreSQL records", () => {
  rollingDeployTests({ framework: "hono", loadBalancer: "haproxy", records: "postgres" });
});
