// What clients/generated/README.md shows, type-checked with the generated client (tsc -p clients/generated).
import { Configuration, TasksApi, ClaimsApi, TaskStatus } from "../target/generated-sources/openapi-typescript";

export async function submitAndWait(url: string, key: string): Promise<object | undefined> {
  const tasks = new TasksApi(new Configuration({ basePath: url, accessToken: key }));
  const task = await tasks.submitTask({ submitTask: { type: "noop", payload: { width: 640, sizes: [{ w: 64 }] } } });
  const done = await tasks.getTask({ id: task.id!, wait: "30s" });
  return done.status === TaskStatus.Succeeded ? done.result : undefined;
}

/** One task for many edits of a customer: each submission moves its start 5 s on, never past a minute. */
export async function debounce(url: string, key: string, customer: number): Promise<string | undefined> {
  const tasks = new TasksApi(new Configuration({ basePath: url, accessToken: key }));
  const task = await tasks.submitTask({ submitTask: { type: "noop", payload: { customer },
    dedupe: { key: `reindex-customer-${customer}`, mode: "debounce", period: "5s", maxWait: "1m" } } });
  return task.id;
}

export async function claimAndComplete(url: string, workerKey: string): Promise<void> {
  const claims = new ClaimsApi(new Configuration({ basePath: url, accessToken: workerKey }));
  const { claims: claimed = [] } = await claims.claimTasks({ claimRequest: { types: ["resize"], wait: "20s" } });
  for (const claim of claimed) {
    await claims.completeClaim({ claimId: claim.claimId!, claimResult: { result: { width: 320 } } });
  }
}
