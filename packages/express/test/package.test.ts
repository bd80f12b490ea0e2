import { describe, expect, it } from "vitest";
import { packageName } from "../src/index.js";

describe("@kirimbayar/express", () => {
  it("names itself", () => expect(packageName).toBe("@kirimbayar/express"));
});
