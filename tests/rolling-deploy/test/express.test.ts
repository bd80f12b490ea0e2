// The Express shop behind nginx, its records in Redis (handlers not transactional): a rolling deploy.
import { describe } from "vitest";
import { rollingDeployTests } from "./support/suite.js";

describe("rolling deploy: Express shop, nginx, Redis records", () => {
  rollingDeployTests({ framework: "express", loadBalancer: "nginx", records: "redis" }, { withoutRecipe: true });
});
