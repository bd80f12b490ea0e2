// The fake provider for the rate-quoter benchmark, in its own process (its work and garbage collection stay off the
// event loop being measured), over HTTP on loopback, no rate limit. Courier faults come as JSON in argv[2], e.g.
// `{"sicepat":{"delayMs":3000},"jnt":{"status":503}}`. Prints `ready <url> <shipping key>`; stops on SIGTERM.
import { createFakeProvider } from "@kirimbayar/testing";

const provider = createFakeProvider({ rateLimit: false, recordRequests: false });
for (const [courier, fault] of Object.entries(JSON.parse(process.argv[2] ?? "{}"))) {
  provider.setCourierFault(courier, fault);
}
const server = await provider.listen({ host: "127.0.0.1", port: 0 });
console.log(`ready ${server.url} ${provider.apiKeys.shipping[0]}`);
process.on("SIGTERM", () => {
  server.close().then(() => process.exit(0));
});
