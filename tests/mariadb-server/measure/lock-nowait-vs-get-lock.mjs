// Measures the two ways to answer a concurrent duplicate of a transactional delivery at once on MariaDB (the choice
// behind the MySQL store's transactional claim): a named lock taken without waiting (GET_LOCK(name, 0)) against a
// locking read that does not wait (SELECT ... FOR UPDATE NOWAIT) followed by the INSERT, and MariaDB's claim statements
// that do not wait for row locks (SET STATEMENT innodb_lock_wait_timeout = 0 FOR ...). Run: node measure/lock-nowait-vs-get-lock.mjs

import mysql from "mysql2/promise";
import { startMariaDbServer } from "../index.js";

const s = await startMariaDbServer();
const pool = mysql.createPool({ uri: s.url, connectionLimit: 16 });
await pool.query(
  `CREATE TABLE ev (key_hash BINARY(32) NOT NULL PRIMARY KEY, \`key\` TEXT NOT NULL, state VARCHAR(10) NOT NULL, owner TEXT, attempts INT NOT NULL DEFAULT 1, lease_expires_at DATETIME(6), expires_at DATETIME(6) NOT NULL) ENGINE=InnoDB`,
);
await pool.query(`CREATE TABLE orders (id VARCHAR(64) PRIMARY KEY, paid INT NOT NULL DEFAULT 0) ENGINE=InnoDB`);
const H = "UNHEX(SHA2(?, 256))";
const LOCK = "CONCAT('kirimbayar:', LEFT(SHA2(CONCAT(DATABASE(), '.ev:', ?), 256), 52))";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const variants = {
  async getlock(c, key) {
    const [r] = await c.execute(
      `INSERT IGNORE INTO ev (key_hash, \`key\`, state, attempts, expires_at) SELECT ${H}, ?, 'completed', 1, UTC_TIMESTAMP(6) + INTERVAL 86400 SECOND FROM DUAL WHERE GET_LOCK(${LOCK}, 0) = 1`,
      [key, key, key],
    );
    if (r.affectedRows === 1) return "claimed";
    const [[row]] = await c.execute(
      `SELECT COALESCE(IS_USED_LOCK(${LOCK}) = CONNECTION_ID(), 0) AS got, (SELECT state FROM ev WHERE key_hash = ${H}) AS state`,
      [key, key],
    );
    return row.got ? (row.state === "completed" ? "completed" : "claimed") : "in_progress";
  },
  // MariaDB: the claim's own statements do not wait for row locks (what the store does by default on MariaDB).
  async nowaitstmt(c, key) {
    try {
      const [r] = await c.execute(
        `SET STATEMENT innodb_lock_wait_timeout = 0 FOR INSERT IGNORE INTO ev (key_hash, \`key\`, state, attempts, expires_at) VALUES (${H}, ?, 'completed', 1, UTC_TIMESTAMP(6) + INTERVAL 86400 SECOND)`,
        [key, key],
      );
      if (r.affectedRows === 1) return "claimed";
      const [r2] = await c.execute(
        `SET STATEMENT innodb_lock_wait_timeout = 0 FOR UPDATE ev SET state = 'completed', attempts = attempts + 1 WHERE key_hash = ${H} AND state <> 'completed'`,
        [key],
      );
      return r2.affectedRows === 1 ? "claimed" : "completed";
    } catch (e) {
      if (e.errno === 1205) return "in_progress";
      throw e;
    }
  },
  async nowait(c, key) {
    let rows;
    try {
      [rows] = await c.execute(`SELECT state FROM ev WHERE key_hash = ${H} FOR UPDATE NOWAIT`, [key]);
    } catch (e) {
      if ([1205, 3572, 1213].includes(e.errno)) return `in_progress(${e.errno})`;
      throw e;
    }
    if (rows.length) return rows[0].state === "completed" ? "completed" : "claimed";
    try {
      await c.execute(
        `INSERT INTO ev (key_hash, \`key\`, state, attempts, expires_at) VALUES (${H}, ?, 'completed', 1, UTC_TIMESTAMP(6) + INTERVAL 86400 SECOND)`,
        [key, key],
      );
    } catch (e) {
      if ([1205, 1213, 1062].includes(e.errno)) return `in_progress(${e.errno})`;
      throw e;
    }
    return "claimed";
  },
};
async function deliver(variant, key, { holdMs = 0, isolation } = {}) {
  const c = await pool.getConnection();
  if (isolation) await c.query(`SET SESSION TRANSACTION ISOLATION LEVEL ${isolation}`);
  else await c.query("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ");
  const t0 = performance.now();
  let outcome;
  try {
    await c.query("START TRANSACTION");
    outcome = await variants[variant](c, key);
    const answeredAt = performance.now() - t0;
    if (outcome === "claimed") {
      await c.execute("INSERT INTO orders (id, paid) VALUES (?, 1) ON DUPLICATE KEY UPDATE paid = paid + 1", [key]);
      if (holdMs) await sleep(holdMs);
      await c.query("COMMIT");
    } else await c.query("ROLLBACK");
    if (variant === "getlock") await c.execute(`DO RELEASE_LOCK(${LOCK})`, [key]);
    c.release();
    return { outcome, claimMs: answeredAt, totalMs: performance.now() - t0 };
  } catch (e) {
    c.destroy();
    return {
      outcome: `error ${e.errno ?? e.message}`,
      claimMs: performance.now() - t0,
      totalMs: performance.now() - t0,
    };
  }
}
const q = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};
let n = 0;
// (0) READ COMMITTED, a fresh key, both deliveries past their claim check before either inserts, first handler 500 ms
for (const variant of ["getlock", "nowait", "nowaitstmt"]) {
  for (const isolation of ["READ COMMITTED", "REPEATABLE READ"]) {
    const key = `rc-${variant}-${isolation}`;
    const c1 = await pool.getConnection(),
      c2 = await pool.getConnection();
    await c1.query(`SET SESSION TRANSACTION ISOLATION LEVEL ${isolation}`);
    await c2.query(`SET SESSION TRANSACTION ISOLATION LEVEL ${isolation}`);
    await c1.query("START TRANSACTION");
    await c2.query("START TRANSACTION");
    let r1, r2;
    const t0 = performance.now();
    if (variant === "nowait") {
      await c1.execute(`SELECT state FROM ev WHERE key_hash = ${H} FOR UPDATE NOWAIT`, [key]);
      await c2.execute(`SELECT state FROM ev WHERE key_hash = ${H} FOR UPDATE NOWAIT`, [key]);
      const p1 = c1
        .execute(
          `INSERT INTO ev (key_hash, \`key\`, state, attempts, expires_at) VALUES (${H}, ?, 'completed', 1, UTC_TIMESTAMP(6))`,
          [key, key],
        )
        .then(
          () => "claimed",
          (e) => `err ${e.errno}`,
        );
      await sleep(5);
      const p2 = c2
        .execute(
          `INSERT INTO ev (key_hash, \`key\`, state, attempts, expires_at) VALUES (${H}, ?, 'completed', 1, UTC_TIMESTAMP(6))`,
          [key, key],
        )
        .then(
          () => "claimed",
          (e) => `err ${e.errno}`,
        );
      const done = Promise.race([p1.then((v) => ["first", v]), p2.then((v) => ["second", v])]);
      const [who, what] = await done;
      const at = performance.now() - t0;
      // the winner's handler runs 500 ms, then commits
      const committing = sleep(500).then(() => (who === "first" ? c1 : c2).query("COMMIT"));
      const other = await (who === "first" ? p2 : p1);
      const otherAt = performance.now() - t0;
      await committing;
      console.log(
        `nowait ${isolation}, both checked then inserted: ${who} ${what} at ${at.toFixed(1)} ms; the other ${other} at ${otherAt.toFixed(1)} ms`,
      );
    } else {
      r1 = await variants[variant](c1, key);
      const t1 = performance.now() - t0;
      r2 = await variants[variant](c2, key);
      const t2 = performance.now() - t0;
      console.log(`${variant} ${isolation}: first ${r1} at ${t1.toFixed(1)} ms; second ${r2} at ${t2.toFixed(1)} ms`);
    }
    await c1.query("ROLLBACK").catch(() => {});
    await c2.query("ROLLBACK").catch(() => {});
    c1.destroy();
    c2.destroy();
  }
}
for (const variant of ["getlock", "nowait", "nowaitstmt"]) {
  // (1) a duplicate while the first delivery's handler runs (500 ms)
  for (const preexisting of [false, true]) {
    const key = `dup-${variant}-${n++}`;
    if (preexisting)
      await pool.execute(
        `INSERT INTO ev (key_hash, \`key\`, state, attempts, expires_at) VALUES (${H}, ?, 'released', 1, UTC_TIMESTAMP(6) + INTERVAL 1 DAY)`,
        [key, key],
      );
    const first = deliver(variant, key, { holdMs: 500 });
    await sleep(50);
    const dup = await deliver(variant, key);
    const f = await first;
    console.log(
      `${variant} duplicate during a 500 ms handler (row ${preexisting ? "existing" : "new"}): ${dup.outcome} in ${dup.totalMs.toFixed(1)} ms; first ${f.outcome}`,
    );
  }
  // (2) simultaneous deliveries of a fresh key: 200 rounds of 4
  const tally = {};
  const times = [];
  let applied = 0,
    doubles = 0;
  for (let round = 0; round < 200; round++) {
    const key = `race-${variant}-${round}`;
    const rs = await Promise.all(Array.from({ length: 4 }, () => deliver(variant, key)));
    for (const r of rs) {
      tally[r.outcome] = (tally[r.outcome] ?? 0) + 1;
      times.push(r.totalMs);
    }
    const [[o]] = await pool.execute("SELECT paid FROM orders WHERE id = ?", [key]);
    if (o?.paid === 1) applied++;
    if ((o?.paid ?? 0) > 1) doubles++;
  }
  console.log(
    `${variant} 200 races of 4 on a fresh key: outcomes ${JSON.stringify(tally)}; applied once ${applied}/200, doubles ${doubles}; answer p50 ${q(times, 0.5).toFixed(1)} ms p99 ${q(times, 0.99).toFixed(1)} ms max ${Math.max(...times).toFixed(1)} ms`,
  );
  // (3) throughput: 3000 distinct keys, 8 at a time
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < 3000) {
        const i = next++;
        await deliver(variant, `tp-${variant}-${i}`);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  console.log(
    `${variant} throughput: 3000 deliveries (8 concurrent) in ${secs.toFixed(2)} s = ${(3000 / secs).toFixed(0)}/s`,
  );
}
await pool.end();
await s.destroy();
