-- Append task ids to the queue, only while the pusher still holds the dispatch lock (DESIGN.md, "Queue (Redis)"):
-- a dispatcher that lost its lease between its commit and its push cannot push.
-- KEYS[1]  dispatch lock  taskfence:lock:{dispatch}
-- KEYS[2]  queue stream   taskfence:queue:{dispatch}  (same hash tag: one Cluster slot)
-- ARGV[1]  holder         "<owner>:<token>" of the pusher's lease
-- ARGV[2…] one stream entry each: a task id (field "task"), or several separated by spaces (field "tasks")
-- Returns  the number of entries appended, or -1 if the pusher no longer holds the lock
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return -1
end
for i = 2, #ARGV do
  if string.find(ARGV[i], ' ', 1, true) then
    redis.call('XADD', KEYS[2], '*', 'tasks', ARGV[i])
  else
    redis.call('XADD', KEYS[2], '*', 'task', ARGV[i])
  end
end
return #ARGV - 1
