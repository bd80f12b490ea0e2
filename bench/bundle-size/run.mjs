#!/usr/bin/env node
// Size of `@kirimbayar/core/webhooks` as an edge-runtime user ships it: bundled from core's built ESM entry for the
// browser/worker conditions (so `#crypto` picks the Web Crypto provider), minified, then gzipped at level 9.
// Goals (lru-cache kept; 16 and 13 KB after the first wave, raised for issue 29 once the HTTP contract, the handler
// time limit and the store time limits had landed): at most 18 KB for the whole entry and at most 15.5 KB for a
// one-source endpoint (receiver + token verifier + default memory store), without zod (a peer dependency the app
// already has). The size with zod bundled in is shown for context only. Writes bench/results/bundle-size.md.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const GOAL_BYTES = 18 * 1024;
const ENDPOINT_GOAL_BYTES = 15.5 * 1024;
const goalKb = (bytes) => `${bytes / 1024} KB`;
const benchDir = dirname(dirname(fileURLToPath(import.meta.url)));
const repoRoot = dirname(benchDir);
const entry = join(repoRoot, "packages/core/dist/webhooks.js");

// rolldown is the bundler tsdown (a root dev dependency) is built on; load that exact copy rather than adding a
// second bundler to the workspace.
const requireFromTsdown = createRequire(createRequire(import.meta.url).resolve("tsdown"));
const { rolldown } = await import(pathToFileURL(requireFromTsdown.resolve("rolldown")).href);

/**
 * Bundles `source` (default: the whole webhooks entry) into one minified ESM file and returns its raw and gzipped
 * sizes in bytes. A `source` text is written inside packages/core so its bare imports resolve like core's own.
 */
async function measure({ bundleZod, source }) {
  const outDir = mkdtempSync(join(tmpdir(), "kirimbayar-bundle-"));
  const input = source === undefined ? entry : join(repoRoot, "packages/core", `.bundle-entry-${process.pid}.mjs`);
  if (source !== undefined) writeFileSync(input, source);
  try {
    const bundle = await rolldown({
      input,
      platform: "browser",
      resolve: { conditionNames: ["worker", "browser", "import", "default"] },
      external: bundleZod ? [] : [/^zod(\/|$)/],
      logLevel: "silent",
    });
    const { output } = await bundle.write({ dir: outDir, format: "esm", minify: true, codeSplitting: false });
    await bundle.close();
    const code = output.map((chunk) => (chunk.type === "chunk" ? chunk.code : "")).join("");
    const bytes = Buffer.byteLength(code);
    return { bytes, gzip: gzipSync(code, { level: 9 }).length, nodeImports: /\bnode:/.test(code) };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
    if (source !== undefined) rmSync(input, { force: true });
  }
}

const kb = (bytes) => `${(bytes / 1024).toFixed(2)} KB`;
const withoutZod = await measure({ bundleZod: false });
const withZod = await measure({ bundleZod: true });
// Context for the goal: the part that is lru-cache (MemoryIdempotencyStore's engine, required by the receiver issue),
// and a typical endpoint that imports only what it uses (receiver, token verifier, default memory store).
const lruCacheOnly = await measure({ bundleZod: false, source: 'export { LRUCache } from "lru-cache";\n' });
const typicalEndpoint = await measure({
  bundleZod: false,
  source: `import { createWebhookReceiver, tokenVerifier } from ${JSON.stringify(entry)};
export const receiver = createWebhookReceiver({ source: "qris", verify: [tokenVerifier({ secrets: "t", in: "query" })] });
`,
});
const pass = withoutZod.gzip <= GOAL_BYTES && !withoutZod.nodeImports;
const endpointPass = typicalEndpoint.gzip <= ENDPOINT_GOAL_BYTES && !typicalEndpoint.nodeImports;

const coreVersion = JSON.parse(readFileSync(join(repoRoot, "packages/core/package.json"), "utf8")).version;
const fragment = `## Bundle size of \`@kirimbayar/core/webhooks\`

Built ESM entry of \`@kirimbayar/core@${coreVersion}\` bundled with rolldown for the browser/worker conditions (Web
Crypto provider), minified, gzip level 9.

| Bundle | Minified | Minified + gzip | \`node:\` imports |
| --- | ---: | ---: | --- |
| without zod (peer dependency, external) | ${kb(withoutZod.bytes)} | **${kb(withoutZod.gzip)}** | ${withoutZod.nodeImports ? "yes" : "none"} |
| with zod bundled in (context only) | ${kb(withZod.bytes)} | ${kb(withZod.gzip)} | ${withZod.nodeImports ? "yes" : "none"} |
| of which lru-cache alone (context only) | ${kb(lruCacheOnly.bytes)} | ${kb(lruCacheOnly.gzip)} | ${lruCacheOnly.nodeImports ? "yes" : "none"} |
| a one-source endpoint: receiver + token verifier + default memory store, without zod | ${kb(typicalEndpoint.bytes)} | ${kb(typicalEndpoint.gzip)} | ${typicalEndpoint.nodeImports ? "yes" : "none"} |

Goals, minified + gzipped without zod and with no \`node:\` import: the whole entry at most ${goalKb(GOAL_BYTES)} (**${pass ? "met" : "NOT met"}**),
a one-source endpoint at most ${goalKb(ENDPOINT_GOAL_BYTES)} (**${endpointPass ? "met" : "NOT met"}**).

<!-- goal: core webhooks entry, min+gzip without zod | ${kb(withoutZod.gzip)} | <= ${goalKb(GOAL_BYTES)} | ${pass ? "pass" : "fail"} -->
<!-- goal: one-source webhook endpoint, min+gzip without zod | ${kb(typicalEndpoint.gzip)} | <= ${goalKb(ENDPOINT_GOAL_BYTES)} | ${endpointPass ? "pass" : "fail"} -->
`;

mkdirSync(join(benchDir, "results"), { recursive: true });
writeFileSync(join(benchDir, "results/bundle-size.md"), fragment);
console.log(fragment);
