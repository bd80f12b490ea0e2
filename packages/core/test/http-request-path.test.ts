// requestPathReader (concatenation shortcut) must give what URL parsing gives.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fillPath } from "../src/http/request-body.js";
import { requestPathReader } from "../src/http/request-path.js";

const bases = ["https://api.example.id", "http://127.0.0.1:4010", "https://h.example/v2", "https://h.example/a%20b/c"];
const segment = fc.oneof(
  fc.string({ unit: fc.constantFrom(..."aZ09-._~!$&'()*+,;=:@%/\\?#^|`{} \"<>é."), maxLength: 8 }),
  fc.constantFrom(".", "..", "%2e", "%2E%2e", ".well-known", "a.b", ""),
);
describe("requestPathReader", () => {
  it("agrees with new URL(base + path).pathname", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...bases),
        fc.array(segment, { minLength: 1, maxLength: 5 }),
        fc.string(),
        (base, parts, param) => {
          const readPath = requestPathReader(base);
          for (const path of [
            `/${parts.join("/")}`,
            fillPath("/status/{id}", { id: param }),
            fillPath(`/${parts[0]}/{id}`.replace(/[{}]/g, "") + "/{id}", { id: param }),
          ]) {
            expect(readPath(path)).toBe(new URL(base + path).pathname);
          }
        },
      ),
      { numRuns: 5000 },
    );
  });
});
