// The Express shop with its durable inbox on pg-boss (SHOP_INBOX): the webhook routes queue each event and the inbox
// worker in each instance applies it, behind HAProxy, records in PostgreSQL (transactional handlers). A rolling
// deploy stops one instance's route and worker together.
import { describe } from "vitest";
import { rollingDeployTests } from "./support/suite.js";

describe("rolling deploy: Express shop with a pg-boss inbox worker, HAProxy, PostgreSQL records", () => {
  rollingDeployTests({ framework: "express", loadBalancer: "haproxy", records: "postgres", inbox: "pg-boss" });
});
