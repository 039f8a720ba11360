-- Release a fenced lock (compare-and-delete) and wake the replicas waiting for it.
-- KEYS[1]  lock key   taskfence:lock:{name}
-- ARGV[1]  holder     "<owner>:<token>" exactly as acquire stored it
-- ARGV[2]  channel    pub/sub channel that waiters listen on
-- ARGV[3]  name       the lock's name, published as the message
-- Returns  1          released
--          0          not held by this holder: nothing deleted, nothing published
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[2], ARGV[3])
  return 1
end
return 0
