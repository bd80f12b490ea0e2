// The fake provider for the client-overhead benchmark, in its own process so its work and garbage collection do
// not run on the event loop being measured. No rate limit (the benchmark sends thousands of calls a minute).
// Prints `ready <url>`; stops on SIGTERM.
import { createFakeProvider } from "@kirimbayar/testing";

const provider = createFakeProvider({ rateLimit: false });
const server = await provider.listen({ host: "127.0.0.1", port: 0 });
console.log(`ready ${server.url} ${provider.apiKeys.shipping[0]}`);
process.on("SIGTERM", () => {
  server.close().then(() => process.exit(0));
});
