-- Renew a fenced lock's lease, only for the holder that still owns it.
-- KEYS[1]  lock key   taskfence:lock:{name}
-- ARGV[1]  holder     "<owner>:<token>" exactly as acquire stored it
-- ARGV[2]  lease      milliseconds
-- Returns  1          renewed
--          0          not held by this holder (lease lapsed, or another holder has it): nothing changed
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
