package io.taskfence.queue;

import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.redis.datasource.RedisDataSource;
import io.taskfence.lock.LockSettings;
import io.vertx.mutiny.redis.client.Response;

/**
 * The Redis Stream that carries task ids from dispatch to the workers (DESIGN section 4). The table,
 * not the stream, is the truth: the stream only says which tasks to try to claim.
 */
@ApplicationScoped
public class TaskQueue {

    /** The consumer group all replicas' workers read through. */
    public static final String GROUP = "workers";

    private final RedisDataSource redis;
    private final String stream;

    TaskQueue(RedisDataSource redis, LockSettings settings) {
        this.redis = redis;
        this.stream = settings.keyPrefix() + ":queue";
    }

    /** Messages in the stream (XLEN); 0 before the first push. */
    public long depth() {
        return redis.execute("XLEN", stream).toLong();
    }

    /** The consumers in the workers' group, one per replica that has read; none before the first read. */
    public List<String> consumers() {
        if (!redis.key().exists(stream)) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        try {
            for (Response consumer : redis.execute("XINFO", "CONSUMERS", stream, GROUP)) {
                names.add(consumer.get("name").toString());
            }
        } catch (RuntimeException e) {
            if (e.getMessage() == null || !e.getMessage().contains("NOGROUP")) {
                throw e;
            }
        }
        return names;
    }
}
