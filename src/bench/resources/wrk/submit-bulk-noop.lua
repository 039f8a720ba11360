-- wrk's request for SubmitBenchIT's bulk row: 1,000 noop tasks per POST /api/v1/tasks/batch, without
-- idempotency keys, so that every request creates 1,000 tasks. The API key comes from the command line (-H);
-- the body is built once here and reused as is by every request.
local tasks = {}
for i = 1, 1000 do
  tasks[i] = '{"type":"noop","payload":{}}'
end
wrk.method = "POST"
wrk.body = '{"tasks":[' .. table.concat(tasks, ",") .. ']}'
wrk.headers["Content-Type"] = "application/json"
