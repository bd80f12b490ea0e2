// A one-shot Redis command over a fresh loopback connection, for the harnesses' checks and admin commands (INFO,
// SENTINEL, CLUSTER, WAIT): no client library, one reply, bounded in time.
import { Socket } from "node:net";

/** An error reply (`-ERR ...`) of a Redis server. */
export class RedisReplyError extends Error {}

const INCOMPLETE = Symbol("incomplete");

// Parses one RESP2 reply at `offset`: { value, next }, or INCOMPLETE when the buffer does not hold all of it yet.
function parse(buffer, offset) {
  const lineEnd = buffer.indexOf("\r\n", offset);
  if (lineEnd < 0) return INCOMPLETE;
  const type = String.fromCharCode(buffer[offset]);
  const line = buffer.toString("utf8", offset + 1, lineEnd);
  const next = lineEnd + 2;
  switch (type) {
    case "+":
      return { value: line, next };
    case "-":
      return { value: new RedisReplyError(line), next };
    case ":":
      return { value: Number(line), next };
    case "$": {
      const length = Number(line);
      if (length < 0) return { value: null, next };
      if (buffer.length < next + length + 2) return INCOMPLETE;
      return { value: buffer.toString("utf8", next, next + length), next: next + length + 2 };
    }
    case "*": {
      const count = Number(line);
      if (count < 0) return { value: null, next };
      const items = [];
      let at = next;
      for (let i = 0; i < count; i++) {
        const item = parse(buffer, at);
        if (item === INCOMPLETE) return INCOMPLETE;
        items.push(item.value);
        at = item.next;
      }
      return { value: items, next: at };
    }
    default:
      throw new Error(`Unexpected RESP reply type ${JSON.stringify(type)}`);
  }
}

function encode(args) {
  let out = `*${args.length}\r\n`;
  for (const arg of args) {
    const text = String(arg);
    out += `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
  }
  return out;
}

/**
 * Sends one command to 127.0.0.1:`port` on a new connection and resolves with its reply (strings, numbers,
 * arrays, `null`); rejects on an error reply, a refused connection, or no reply within `timeoutMs`.
 *
 * @example
 * const info = await redisCommand(port, ["INFO", "replication"]);
 */
export function redisCommand(port, args, { timeoutMs = 2_000 } = {}) {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    let buffer = Buffer.alloc(0);
    let settled = false;
    const finish = (error, value) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      if (error) reject(error);
      else resolve(value);
    };
    socket.setTimeout(timeoutMs, () =>
      finish(new Error(`No reply to ${args[0]} from 127.0.0.1:${port} within ${timeoutMs} ms`)),
    );
    socket.once("error", (error) => finish(error));
    socket.once("close", () => finish(new Error(`127.0.0.1:${port} closed the connection before replying`)));
    socket.on("data", (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      let reply;
      try {
        reply = parse(buffer, 0);
      } catch (error) {
        finish(error);
        return;
      }
      if (reply === INCOMPLETE) return;
      if (reply.value instanceof RedisReplyError) finish(reply.value);
      else finish(undefined, reply.value);
    });
    socket.connect(port, "127.0.0.1", () => socket.write(encode(args)));
  });
}

/** The `field:value` lines of an INFO reply as an object. */
export function parseInfo(text) {
  const fields = {};
  for (const line of String(text).split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0 && !line.startsWith("#")) fields[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return fields;
}

/** A flat `[name, value, name, value, ...]` reply (SENTINEL MASTER) as an object. */
export function pairs(reply) {
  const fields = {};
  for (let i = 0; i + 1 < reply.length; i += 2) fields[reply[i]] = reply[i + 1];
  return fields;
}
