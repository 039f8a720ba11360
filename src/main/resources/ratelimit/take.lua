-- Take tokens from an API key's request bucket (DESIGN.md, "REST API", "Request rates"): a token bucket shared by
-- every replica, holding at most `capacity` tokens and refilled at `capacity` per `window`. Redis's own clock is
-- the only clock, so replicas whose clocks differ still share one bucket.
-- KEYS[1]  the key's bucket (a hash: tokens, at)   taskfence:rate:<key name>
-- ARGV[1]  capacity: the rate's n                 100
-- ARGV[2]  window in milliseconds                  1000
-- ARGV[3]  tokens asked                            1 (a batch: its tasks)
-- Returns  {1, 0} if taken; {0, ms} if not, ms until enough tokens will be there; {0, -1} if more were asked
--          than the bucket holds (never to be taken whole). A refusal takes nothing.
local capacity = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local asked = tonumber(ARGV[3])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(bucket[1]) or capacity
local at = tonumber(bucket[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - at) * capacity / window)
if asked > capacity then
  return {0, -1}
end
local reply
if tokens >= asked then
  tokens = tokens - asked
  reply = {1, 0}
else
  reply = {0, math.ceil((asked - tokens) * window / capacity)}
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], window * 2)
return reply
