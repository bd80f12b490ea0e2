// The statements a pg-boss inbox worker runs on pg-boss 10's job table, instead of pg-boss's fetch, complete and
// fail. Each settle is fenced by the job's retry count: a fetch of a job that ran before adds one to it, so a worker
// whose hold was taken back (its job handed to another worker) changes nothing of the other worker's try.
// `$1` is always the queue's name; jobs of one queue live in one partition of the job table.

/** The statements of one schema. */
export interface InboxStatements {
  /**
   * Takes up to `$2` due events, oldest due first, from `start_after` `$3` on (null: from the start), and marks them
   * active (as pg-boss's fetch does, retry count included); each row carries the latest `start_after` taken
   * (`cursorAt`), where the worker's next fetch starts. pg-boss 10's own fetch orders by priority and creation time,
   * which no index of its table serves: it reads and sorts every waiting event on each call (133 ms at 100,000
   * waiting, against 0.1 ms here). Ordered by `start_after`, the scan follows pg-boss's own index
   * `(name, start_after) WHERE state < 'active'` and stops after `$2` rows; starting at the cursor, it also skips the
   * entries the index still keeps for the events taken before (until a vacuum), which a scan from the start reads
   * again on every fetch. The inbox sets no priorities; events falling due at once keep their order of arrival.
   */
  readonly fetch: string;
  /** Renews the hold of the held jobs `$2` (ids) at retry counts `$3`; a job being settled meanwhile is skipped. */
  readonly heartbeat: string;
  /**
   * Hands back the active jobs whose hold ran out (`started_on + expire_in`, what pg-boss's expire reads), except
   * the ids `$2` this worker holds: to `retry`, due after the job's retry delay, as pg-boss's expire would.
   */
  readonly reap: string;
  /** Completes jobs `$2` at retry counts `$3` with output `$4` (one statement for a batch). */
  readonly complete: string;
  /** Job `$2` at retry count `$3` back to the queue, due in `$5` ms, its tries `$4` in its data and output. */
  readonly retry: string;
  /** The partition holding a queue's jobs. */
  readonly partitionOf: string;
}

const TIMEOUT_OUTPUT = `'{ "value": { "message": "job failed by timeout in active state" } }'::jsonb`;

/** The statements on `"<schema>".job` (`schema` already checked to be a plain identifier). */
export function inboxStatements(schema: string): InboxStatements {
  const jobs = `"${schema}".job`;
  // Rows of this worker's hold, locked in one go; those another statement holds right now are left alone.
  const heldRows = (state: string) => `
      SELECT j.name, j.id FROM ${jobs} j
        JOIN unnest($2::uuid[], $3::int[]) AS h(id, retry_count) ON j.id = h.id AND j.retry_count = h.retry_count
       WHERE j.name = $1 AND ${state}
       FOR UPDATE OF j SKIP LOCKED`;
  return {
    fetch: `
      WITH next AS (
        SELECT id FROM ${jobs}
         WHERE name = $1 AND state < 'active' AND start_after < now()
           AND start_after >= coalesce($3::timestamptz, '-infinity'::timestamptz)
         ORDER BY start_after
         LIMIT $2
         FOR UPDATE SKIP LOCKED
      ), taken AS (
        UPDATE ${jobs} j SET
          state = 'active',
          started_on = now(),
          retry_count = CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 1 ELSE j.retry_count END
        FROM next
        WHERE j.name = $1 AND j.id = next.id
        RETURNING j.id, j.data, j.retry_count, j.output, j.start_after
      )
      SELECT id, data, retry_count AS "retryCount", output, (max(start_after) OVER ())::text AS "cursorAt"
        FROM taken
       ORDER BY start_after`,
    heartbeat: `
      UPDATE ${jobs} j SET started_on = now()
        FROM (${heldRows("j.state = 'active'")}) AS held
       WHERE j.name = held.name AND j.id = held.id`,
    reap: `
      WITH expired AS (
        SELECT name, id FROM ${jobs}
         WHERE name = $1 AND state = 'active' AND started_on + expire_in < now() AND NOT (id = ANY($2::uuid[]))
         FOR UPDATE SKIP LOCKED
      )
      UPDATE ${jobs} j SET
        state = CASE WHEN j.retry_count < j.retry_limit THEN 'retry'::"${schema}".job_state ELSE 'failed'::"${schema}".job_state END,
        start_after = CASE
          WHEN j.retry_count >= j.retry_limit THEN j.start_after
          WHEN NOT j.retry_backoff THEN now() + j.retry_delay * interval '1 second'
          ELSE now() + (
            j.retry_delay * 2 ^ LEAST(16, j.retry_count + 1) / 2 +
            j.retry_delay * 2 ^ LEAST(16, j.retry_count + 1) / 2 * random()
          ) * interval '1 second'
        END,
        completed_on = CASE WHEN j.retry_count < j.retry_limit THEN NULL ELSE now() END,
        output = ${TIMEOUT_OUTPUT}
      FROM expired
      WHERE j.name = expired.name AND j.id = expired.id
      RETURNING j.id`,
    // 'retry' too: a job whose hold ran out and that no worker took yet is still this try's to settle.
    complete: `
      UPDATE ${jobs} j SET state = 'completed', completed_on = now(), output = $4::jsonb
        FROM unnest($2::uuid[], $3::int[]) AS h(id, retry_count)
       WHERE j.name = $1 AND j.id = h.id AND j.retry_count = h.retry_count AND j.state IN ('retry', 'active')`,
    retry: `
      UPDATE ${jobs} SET
        state = CASE WHEN retry_count < retry_limit THEN 'retry'::"${schema}".job_state ELSE 'failed'::"${schema}".job_state END,
        completed_on = CASE WHEN retry_count < retry_limit THEN NULL ELSE now() END,
        start_after = now() + $5 * interval '1 millisecond',
        data = jsonb_set(data, '{attempts}', $4::jsonb),
        output = jsonb_build_object('attempts', $4::jsonb)
       WHERE name = $1 AND id = $2 AND retry_count = $3 AND state IN ('retry', 'active')`,
    partitionOf: `SELECT partition_name FROM "${schema}".queue WHERE name = $1`,
  };
}

/**
 * An index of the queue's partition on the active jobs' start time: the reaper's statement then reads only the
 * active jobs, not every job the queue keeps (completed ones stay 30 days). Built without blocking the queue's
 * writes.
 */
export function activeIndexStatement(schema: string, partition: string): string {
  return `CREATE INDEX CONCURRENTLY IF NOT EXISTS "${partition}_ki1" ON "${schema}"."${partition}" (started_on) WHERE state = 'active'`;
}
