// A TCP relay in front of one redis-server that tells replication links apart from clients, so a test can cut the
// replication alone while clients, sentinels and the server stay up. A replica's connection is recognised by the
// commands only a replica sends (REPLCONF, PSYNC, SYNC); on cut() those connections are destroyed with whatever
// either side had in flight, and new ones are refused until heal(). On loopback the replica otherwise receives
// every write within microseconds of the master, which hides the window that asynchronous replication leaves.
import { connect, createServer } from "node:net";

// A replica's handshake: PING, then REPLCONF listening-port / capa, then PSYNC (SYNC on old servers).
const REPLICA_COMMAND = /\r\n(REPLCONF|PSYNC|SYNC)\r\n/i;
// Past this much traffic without a replica's command, a connection is a client.
const CLASSIFY_BYTES = 64 * 1024;

/**
 * Starts a relay on `port` (a free one when omitted) of 127.0.0.1 to 127.0.0.1:`targetPort`.
 *
 * @example
 * const proxy = await startLinkProxy({ targetPort: redis.port });
 * proxy.cutReplication(); // the replicas lose their link and cannot get it back
 * proxy.healReplication();
 */
export async function startLinkProxy({ targetPort, port = 0 }) {
  let target = targetPort;
  let cut = false;
  const links = new Set();
  let cuts = 0;

  function destroy(link) {
    link.client.destroy();
    link.upstream.destroy();
    links.delete(link);
  }

  const server = createServer((client) => {
    const upstream = connect(target, "127.0.0.1");
    const link = { client, upstream, replication: false, seen: 0, tail: "" };
    links.add(link);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    for (const socket of [client, upstream]) {
      socket.on("error", () => {});
      socket.on("close", () => destroy(link));
    }
    client.on("data", (chunk) => {
      if (!link.replication && link.seen < CLASSIFY_BYTES) {
        const text = link.tail + chunk.toString("latin1");
        link.seen += chunk.length;
        if (REPLICA_COMMAND.test(text)) link.replication = true;
        link.tail = text.slice(-16);
      }
      if (link.replication && cut) {
        destroy(link);
        return;
      }
      relay(chunk, client, upstream);
    });
    upstream.on("data", (chunk) => {
      if (link.replication && cut) {
        destroy(link);
        return;
      }
      relay(chunk, upstream, client);
    });
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : port,
    get target() {
      return target;
    },
    set target(value) {
      target = value;
    },
    /** Replication connections relayed right now. */
    get replicationLinks() {
      let count = 0;
      for (const link of links) if (link.replication) count += 1;
      return count;
    },
    /** Replication connections destroyed by cutReplication() so far. */
    get cutLinks() {
      return cuts;
    },
    cutReplication() {
      cut = true;
      for (const link of [...links]) {
        if (!link.replication) continue;
        cuts += 1;
        destroy(link);
      }
    },
    healReplication() {
      cut = false;
    },
    close() {
      for (const link of [...links]) destroy(link);
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

// Forwards with back-pressure: a slow reader pauses the writer instead of growing the relay's memory.
function relay(chunk, from, to) {
  if (to.destroyed) return;
  if (!to.write(chunk)) {
    from.pause();
    to.once("drain", () => from.resume());
  }
}
