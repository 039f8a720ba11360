package io.taskfence.lock;

import java.util.ArrayList;
import java.util.List;

import io.quarkus.redis.datasource.RedisDataSource;
import io.vertx.mutiny.redis.client.Response;

/**
 * The three lock operations, each one Lua script and one round trip. Scripts are sent by SHA-1
 * (EVALSHA); when Redis does not know one (restart, SCRIPT FLUSH, failover) the script is sent whole
 * once with EVAL, which also makes Redis cache it again.
 */
final class LockScripts {

    /** Result of one acquire attempt: a token, or the current holder's remaining lease. */
    record AcquireReply(boolean acquired, long token, long holderTtlMillis) {
    }

    private final RedisDataSource redis;
    private final LuaScript acquire = LuaScript.load("lock/acquire.lua");
    private final LuaScript renew = LuaScript.load("lock/renew.lua");
    private final LuaScript release = LuaScript.load("lock/release.lua");

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

    private Response run(LuaScript script, List<String> keys, String... args) {
        try {
            try {
                return redis.execute("EVALSHA", arguments(script.sha1(), keys, args));
            } catch (RuntimeException e) {
                if (!isNoScript(e)) {
                    throw e;
                }
                return redis.execute("EVAL", arguments(script.source(), keys, args));
            }
        } catch (RuntimeException e) {
            throw new LockUnavailableException(
                    "Redis did not complete " + script.resource() + " on " + keys.getFirst() + ": " + e.getMessage(), e);
        }
    }

    private static boolean isNoScript(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().startsWith("NOSCRIPT")) {
                return true;
            }
        }
        return false;
    }

    private static String[] arguments(String script, List<String> keys, String... args) {
        List<String> all = new ArrayList<>(2 + keys.size() + args.length);
        all.add(script);
        all.add(Integer.toString(keys.size()));
        all.addAll(keys);
        all.addAll(List.of(args));
        return all.toArray(String[]::new);
    }
}
