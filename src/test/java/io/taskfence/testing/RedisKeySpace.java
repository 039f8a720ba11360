package io.taskfence.testing;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisAPI;
import io.vertx.redis.client.Response;

/**
 * Gives each test run a Redis key prefix of its own on the shared local Redis, and deletes every key
 * under it when the run ends, so that runs never see each other's locks.
 */
public final class RedisKeySpace implements QuarkusTestResourceLifecycleManager {

    private final String prefix = "taskfence-test-" + UUID.randomUUID().toString().substring(0, 8);
    private String redisUrl;

    @Override
    public Map<String, String> start() {
        redisUrl = System.getProperty("quarkus.redis.hosts",
                System.getenv().getOrDefault("QUARKUS_REDIS_HOSTS", "redis://127.0.0.1:6379"));
        // Connections carry the prefix as their name, so a test can find this run's clients in CLIENT LIST.
        return Map.of("taskfence.key-prefix", prefix,
                "quarkus.redis.client-name", prefix,
                "quarkus.redis.configure-client-name", "true");
    }

    @Override
    public void stop() {
        Vertx vertx = Vertx.vertx();
        try {
            RedisAPI redis = RedisAPI.api(Redis.createClient(vertx, redisUrl));
            String cursor = "0";
            do {
                Response page = redis.scan(List.of(cursor, "MATCH", prefix + ":*", "COUNT", "1000"))
                        .toCompletionStage().toCompletableFuture().join();
                cursor = page.get(0).toString();
                List<String> keys = page.get(1).stream().map(Response::toString).toList();
                if (!keys.isEmpty()) {
                    redis.send(Command.DEL, keys.toArray(String[]::new)).toCompletionStage().toCompletableFuture().join();
                }
            } while (!"0".equals(cursor));
            redis.close();
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().join();
        }
    }
}
