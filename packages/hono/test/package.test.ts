import { describe, expect, it } from "vitest";
import { packageName } from "../src/index.js";

describe("@kirimbayar/hono", () => {
  it("names itself", () => expect(packageName).toBe("@kirimbayar/hono"));
});
