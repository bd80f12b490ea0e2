import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import { Duplex } from "node:stream";
import { type InProcessFetch, type InProcessOptions, requestOf, webResponseOf } from "./web.js";

/**
 * An Express app (what `express()` returns) or any Node request listener `(req, res) => void`, typed structurally so
 * that these declarations need no Express.
 */
export type NodeRequestListenerLike = (req: never, res: never) => unknown;

/**
 * A Node `http.Server` (what `app.listen()` returns, or `http.createServer(app)` before listening): requests go to
 * every `request` listener it has, in order, as a socket's would.
 */
export interface NodeServerLike {
  emit(event: "connection", ...args: never[]): boolean;
}

/** The server `target` answers through, or a TypeError naming what was expected. */
export function serverOf(target: NodeRequestListenerLike | NodeServerLike, helper: string): Server {
  // A server of our own, never listening: it only parses what the in-memory connections carry.
  if (typeof target === "function") return createServer(target as unknown as Parameters<typeof createServer>[1]);
  if (typeof (target as NodeServerLike | undefined)?.emit === "function") return target as unknown as Server;
  throw new TypeError(
    `${helper} needs an Express app (what express() returns), a Node request listener (req, res) or an http.Server; got ${typeof target}`,
  );
}

/**
 * Two connected in-memory streams: what one side writes, the other reads. Stands for the TCP connection between the
 * fake and the app, so both ends are Node's own HTTP code (the app's server parses a real request, its response
 * objects are real), with no port.
 */
function connectionPair(remoteAddress: string): { client: Duplex; server: Duplex } {
  const ends: Duplex[] = [];
  const end = (other: () => Duplex | undefined) =>
    new Duplex({
      read() {},
      write(chunk, _encoding, done) {
        other()?.push(chunk);
        done();
      },
      final(done) {
        other()?.push(null);
        done();
      },
    });
  const client = end(() => ends[1]);
  const server = end(() => ends[0]);
  ends.push(client, server);
  // What a server-side socket tells the app about its peer (`req.socket.remoteAddress`, Express's `req.ip`).
  Object.assign(server, {
    remoteAddress,
    remotePort: 443,
    remoteFamily: remoteAddress.includes(":") ? "IPv6" : "IPv4",
  });
  for (const side of [client, server]) {
    Object.assign(side, {
      setTimeout: () => side,
      setNoDelay: () => side,
      setKeepAlive: () => side,
      ref: () => side,
      unref: () => side,
    });
  }
  return { client, server };
}

/** A `fetch` that sends each request over an in-memory connection to `server`, as a socket's would arrive. */
export function serverFetch(server: Server, options: InProcessOptions): InProcessFetch {
  return async (input, init) => {
    const request = requestOf(input, init);
    const url = new URL(request.url);
    const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
    const headers: Record<string, string> = { host: url.host, connection: "close" };
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    if (body !== undefined) headers["content-length"] = String(body.byteLength);
    const connection = connectionPair(options.remoteAddress ?? "127.0.0.1");
    server.emit("connection", connection.server);
    const answer = await new Promise<{ message: IncomingMessage; bytes: Uint8Array }>((resolve, reject) => {
      const outgoing = httpRequest({
        method: request.method,
        path: `${url.pathname}${url.search}`,
        headers,
        createConnection: () => connection.client as never,
      });
      outgoing.on("error", reject);
      outgoing.on("response", (message) => {
        const chunks: Uint8Array[] = [];
        message.on("data", (chunk: Uint8Array) => chunks.push(chunk));
        message.on("error", reject);
        message.on("end", () => resolve({ message, bytes: Buffer.concat(chunks) }));
      });
      outgoing.end(body);
    });
    const { message, bytes } = answer;
    return webResponseOf(
      {
        status: message.statusCode ?? 500,
        statusText: message.statusMessage,
        headers: pairs(message.rawHeaders),
        body: bytes,
      },
      request.method,
    );
  };
}

/** `[name, value]` pairs of Node's flat `rawHeaders` list (repeated headers kept apart). */
function* pairs(raw: readonly string[]): Iterable<readonly [string, string]> {
  for (let i = 0; i + 1 < raw.length; i += 2) yield [raw[i] ?? "", raw[i + 1] ?? ""];
}
