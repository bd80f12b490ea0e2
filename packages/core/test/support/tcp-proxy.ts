// A TCP relay on a free loopback port to a database server, which a test can cut: every relayed connection closed
// and the port no longer listening, as when the database host goes away. For libraries that must connect once
// before they can be used (TypeORM's DataSource.initialize), so that "unreachable" can be tested after that.
import { connect, createServer, type Socket } from "node:net";

export interface TcpProxy {
  readonly port: number;
  /** Closes every relayed connection and stops listening: new connections are refused. */
  cut(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = "127.0.0.1"): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("tcp proxy: no port");
  return {
    port: address.port,
    cut: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
