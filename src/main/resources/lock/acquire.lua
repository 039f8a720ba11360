-- Acquire a fenced lock: one round trip, atomic.
-- KEYS[1]  lock key      taskfence:lock:{name}   holds "<owner>:<token>" with a PX lease
-- KEYS[2]  fence counter taskfence:fence:{name}  token source, never expires
-- ARGV[1]  owner         unique per replica and per acquisition
-- ARGV[2]  lease         milliseconds
-- Returns  {1, token}    acquired; token is strictly greater than every token issued before
--          {0, pttl}     refused; pttl is the holder's remaining lease in ms (-1: key has no expiry)
local pttl = redis.call('PTTL', KEYS[1])
if pttl ~= -2 then
  return {0, pttl}
end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. token, 'NX', 'PX', ARGV[2])
return {1, token}
