// The NestJS testing recipe (docs/guides/testing/nestjs.md) shows the files of test/recipe, which this project runs:
// every block of the guide that names a file must be that file, byte for byte, and every file must be in the guide.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const guide = readFileSync(new URL("../../../docs/guides/testing/nestjs.md", import.meta.url), "utf8");
const recipeDir = new URL("./recipe/", import.meta.url);
// A block whose first line is `// <file>.ts`, as the guides name a file.
const blocks = [...guide.matchAll(/^```ts\n(\/\/ ([\w.-]+\.ts)\n[\s\S]*?)^```$/gm)].map((match) => ({
  file: match[2] ?? "",
  code: match[1] ?? "",
}));

describe("the NestJS testing recipe", () => {
  it("shows every file of test/recipe once", () => {
    const files = readdirSync(recipeDir).filter((name) => name.endsWith(".ts"));
    expect(blocks.map((block) => block.file).sort()).toEqual(files.sort());
  });

  it.each(blocks)("shows $file as it is", ({ file, code }) => {
    expect(code).toBe(readFileSync(new URL(file, recipeDir), "utf8"));
  });
});
