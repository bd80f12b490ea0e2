import { describe, expect, it } from "vitest";
import { packageName } from "../src/index.js";

describe("@kirimbayar/testing", () => {
  it("names itself", () => expect(packageName).toBe("@kirimbayar/testing"));
});
