package io.taskfence.lock;

import java.util.List;

import io.quarkus.redis.datasource.RedisDataSource;
import io.vertx.mutiny.redis.client.Response;

/** The lock operations, each one Lua script and one round trip ({@link LuaScript}). */
final class LockScripts {

    /** Result of one acquire attempt: a token, or the current holder's remaining lease. */
    record AcquireReply(boolean acquired, long token, long holderTtlMillis) {
    }

    private final RedisDataSource redis;
    private final LuaScript acquire = LuaScript.load("lock/acquire.lua");
    private final LuaScript renew = LuaScript.load("lock/renew.lua");
    private final LuaScript release = LuaScript.load("lock/release.lua");
    private final LuaScript raiseCounter = LuaScript.load("lock/raise-counter.lua");

    LockScripts(RedisDataSource redis) {
        this.redis = redis;
    }

    AcquireReply acquire(LockKeys keys, String owner, long leaseMillis) {
        Response reply = run(acquire, List.of(keys.lock(), keys.fence()), owner, Long.toString(leaseMillis));
        long value = reply.get(1).toLong();
        return reply.get(0).toInteger() == 1
                ? new AcquireReply(true, value, 0)
                : new AcquireReply(false, 0, value);
    }

    boolean renew(LockKeys keys, String holder, long leaseMillis) {
        return run(renew, List.of(keys.lock()), holder, Long.toString(leaseMillis)).toInteger() == 1;
    }

    boolean release(LockKeys keys, String holder) {
        return run(release, List.of(keys.lock()), holder, keys.releaseChannel(), keys.name()).toInteger() == 1;
    }

    boolean raiseCounter(LockKeys keys, long floor) {
        return run(raiseCounter, List.of(keys.fence()), Long.toString(floor)).toInteger() == 1;
    }

    private Response run(LuaScript script, List<String> keys, String... args) {
        try {
            return script.run(redis, keys, args);
        } catch (RuntimeException e) {
            throw new LockUnavailableException(
                    "Redis did not complete " + script.resource() + " on " + keys.getFirst() + ": " + e.getMessage(), e);
        }
    }
}
