package io.taskfence.lock;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.redis.datasource.RedisDataSource;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Response;

/**
 * A Lua script from the class path and the SHA-1 that Redis's EVALSHA knows it by. It is sent by SHA-1;
 * when Redis does not know it (restart, SCRIPT FLUSH, failover) it is sent whole once with EVAL, which
 * also makes Redis cache it again.
 */
public record LuaScript(String resource, String source, String sha1) {

    public static LuaScript load(String resource) {
        try (InputStream in = LuaScript.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + resource + " is not on the class path");
            }
            String source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return new LuaScript(resource, source, sha1(source));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read Lua script " + resource, e);
        }
    }

    /** Runs the script in one round trip (two when Redis forgot it). */
    public Response run(RedisDataSource redis, List<String> keys, String... args) {
        try {
            return redis.execute("EVALSHA", arguments(sha1, keys, args));
        } catch (RuntimeException e) {
            if (!isNoScript(e)) {
                throw e;
            }
            return redis.execute("EVAL", arguments(source, keys, args));
        }
    }

    /** As {@link #run(RedisDataSource, List, String...)}, without holding the calling thread (an event loop's, say). */
    public Uni<Response> run(ReactiveRedisDataSource redis, List<String> keys, String... args) {
        return redis.execute("EVALSHA", arguments(sha1, keys, args)).onFailure(LuaScript::isNoScript)
                .recoverWithUni(() -> redis.execute("EVAL", arguments(source, keys, args)));
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

    private static String sha1(String source) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM provides SHA-1", e);
        }
    }
}
