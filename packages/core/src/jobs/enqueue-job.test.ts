import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDeps } from "../testing";
import { enqueueJobs } from "./enqueue-job";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const jobsWithTask = (queue: string) =>
  t.deps.sql`select id, key, locked_at from graphile_worker.jobs where queue_name = ${queue}`;

it("a keyed add racing a worker that takes the existing job still leaves a job to run after it", async () => {
  const queue = "webhook:agt_race";
  const wake = () =>
    enqueueJobs(t.deps.db, "webhook_drain", [
      { payload: { agentId: "agt_race" }, queue, jobKey: "webhook-drain:agt_race" },
    ]);
  await wake();
  const [existing] = await jobsWithTask(queue);

  // A worker taking the job: its row is locked, and marked taken only when that commits.
  const taken = t.deps.sql.begin(async (worker) => {
    await worker`select id from graphile_worker._private_jobs where id = ${existing?.id} for update`;
    const adding = wake(); // a transaction committing new data wakes the agent meanwhile
    // The add waits for the worker's lock (pg_locks shows it waiting) before the take commits.
    for (let i = 0; i < 100; i++) {
      const [waiting] = await t.deps
        .sql`select count(*)::int as n from pg_locks where not granted and locktype = 'transactionid'`;
      if ((waiting?.n ?? 0) > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await worker`update graphile_worker._private_jobs set locked_at = now(), locked_by = 'test'
      where id = ${existing?.id}`;
    // Not awaited here: the add can only finish once this transaction commits.
    return { adding };
  });
  await (await taken).adding;

  const jobs = await jobsWithTask(queue);
  // The taken job (its key given up) and a new one under the key, which runs after it.
  expect(jobs.map((job) => [job.key, job.locked_at !== null]).sort()).toEqual(
    [
      [null, true],
      ["webhook-drain:agt_race", false],
    ].sort(),
  );
});

it("a payload with text jsonb refuses (\\u0000) is still enqueued, exactly as given", async () => {
  const actionId = "nul\u0000in-payload";
  await enqueueJobs(t.deps.db, "action_expire", [{ payload: { actionId } }]);
  const [job] = await t.deps.sql`
    select j.payload::text as payload from graphile_worker._private_jobs j
    join graphile_worker._private_tasks t on t.id = j.task_id where t.identifier = 'action_expire'`;
  expect(JSON.parse(job?.payload as string)).toEqual({ actionId });
});
