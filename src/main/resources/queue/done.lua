-- Acknowledge and delete handled messages in one round trip (DESIGN.md, "Queue (Redis)"): their claims committed
-- or were refused, so no consumer needs them again, and the stream stays as short as its backlog.
-- KEYS[1]  queue stream    taskfence:queue:{dispatch}
-- ARGV[1]  consumer group  workers
-- ARGV[2…] message ids
-- Returns  the number of entries deleted
local deleted = 0
for first = 2, #ARGV, 1000 do -- unpack's stack is bounded: 1000 ids a call
  local last = math.min(first + 999, #ARGV)
  redis.call('XACK', KEYS[1], ARGV[1], unpack(ARGV, first, last))
  deleted = deleted + redis.call('XDEL', KEYS[1], unpack(ARGV, first, last))
end
return deleted
