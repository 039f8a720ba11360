-- Raise a lock's token counter to at least a floor: the repair after Redis lost the counter while
-- PostgreSQL kept the newest token (DESIGN.md, "Fencing (PostgreSQL)"). Never lowers it.
-- KEYS[1]  fence counter  taskfence:fence:{name}
-- ARGV[1]  floor          the newest token PostgreSQL has seen for this lock
-- Returns  1              the counter was below the floor (or missing) and now equals it
--          0              the counter was at or above the floor: nothing changed
local counter = tonumber(redis.call('GET', KEYS[1]) or '0')
if counter < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1])
  return 1
end
return 0
