package io.taskfence.health;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.taskfence.testing.PackagedService;
import io.taskfence.testing.PostgresSchema;
import io.taskfence.testing.StandaloneRedis;
import io.taskfence.testing.TcpForwarder;

/**
 * The probes of the packaged service against servers that come and go. The service is pointed at ports
 * where nothing listens; then a real Redis is started on its port, and the real PostgreSQL is made to
 * answer on its port (a forwarder to the local server), and taken away again the same way.
 */
class HealthIT {

    private static final String ADMIN_KEY = "tf-health-3f8a1c6e0d2b97e4a5c1f83d6b0e2a97";
    private static final Duration SOON = Duration.ofSeconds(60);
    private static final Duration POLL = Duration.ofMillis(200);

    private final ObjectMapper json = new ObjectMapper();
    private final String schema = "health_" + UUID.randomUUID().toString().substring(0, 8);
    private final Path dir = Path.of("target", "health", schema).toAbsolutePath();
    private final int redisPort;
    private final int postgresPort;
    private PackagedService service;
    private StandaloneRedis redis;
    private TcpForwarder postgres;

    HealthIT() throws Exception {
        redisPort = PackagedService.freePort();
        postgresPort = PackagedService.freePort();
    }

    @Test
    void startsAndStaysAliveWithoutItsServersIsReadyOnlyWhileBothAnswerAndRecoversByItself() throws Exception {
        execute("create schema " + schema);
        Map<String, String> env = new HashMap<>();
        env.put("QUARKUS_REDIS_HOSTS", "redis://127.0.0.1:" + redisPort);
        env.put("QUARKUS_REDIS_TIMEOUT", "1s");
        env.put("QUARKUS_DATASOURCE_JDBC_URL", "jdbc:postgresql://127.0.0.1:" + postgresPort + "/"
                + databaseName() + "?currentSchema=" + schema + "&connectTimeout=2&loginTimeout=3");
        env.put("QUARKUS_DATASOURCE_USERNAME", PostgresSchema.USER);
        env.put("QUARKUS_FLYWAY_SCHEMAS", schema);
        env.put("TASKFENCE_AUTH_KEYS_HEALTH_SECRET", ADMIN_KEY);
        env.put("TASKFENCE_AUTH_KEYS_HEALTH_ROLE", "admin");
        service = PackagedService.start("health-0", env, dir.resolve("service.log"));

        // Neither server is there: started and alive, not ready, and it stays that way instead of exiting.
        service.awaitStatus("/q/health/started", 200, Duration.ofSeconds(90));
        Thread.sleep(3_000);
        assertTrue(service.process().isAlive(), "the service exited while its servers were down");
        assertEquals(200, service.status("/q/health/live"), "liveness must not depend on Redis or PostgreSQL");
        JsonNode ready = readiness();
        assertEquals("DOWN", ready.path("status").asText(), ready.toString());
        // The pools are not exhausted: a connection to a server that is not there fails at once, nobody waits for one.
        assertEquals(Map.of("Redis connection health check", "DOWN", "Database connections health check", "DOWN",
                "schema", "DOWN", "connection pools", "UP"), checks(ready));

        redis = StandaloneRedis.start(redisPort, dir);
        awaitCheck("Redis connection health check", "UP");
        assertEquals(503, service.status("/q/health/ready"), "PostgreSQL is still down");

        postgres = TcpForwarder.open(postgresPort, databasePort());
        service.awaitStatus("/q/health/ready", 200, SOON); // and the migrations were applied meanwhile
        assertEquals("UP", checks(readiness()).get("schema"));
        assertTaskRuns();

        redis.close();
        service.awaitStatus("/q/health/ready", 503, SOON);
        assertEquals(200, service.status("/q/health/live"));
        redis = StandaloneRedis.start(redisPort, dir);
        service.awaitStatus("/q/health/ready", 200, SOON);

        postgres.close();
        service.awaitStatus("/q/health/ready", 503, SOON);
        assertEquals(200, service.status("/q/health/live"));
        postgres = TcpForwarder.open(postgresPort, databasePort());
        service.awaitStatus("/q/health/ready", 200, SOON);

        assertTaskRuns(); // Redis lost its stream and group when it restarted; the service made them again
        assertTrue(service.process().isAlive());
    }

    @Test
    void aMigrationThatCannotSucceedIsNotRetriedAndFailsTheStartupCheck() throws Exception {
        execute("create schema " + schema);
        execute("create table " + schema + ".tasks (id int)"); // not ours: the first migration cannot create it
        redis = StandaloneRedis.start(redisPort, dir);
        Map<String, String> env = new HashMap<>();
        env.put("QUARKUS_REDIS_HOSTS", redis.url());
        env.put("QUARKUS_DATASOURCE_JDBC_URL", PostgresSchema.DATABASE_URL + "?currentSchema=" + schema);
        env.put("QUARKUS_DATASOURCE_USERNAME", PostgresSchema.USER);
        env.put("QUARKUS_FLYWAY_SCHEMAS", schema);
        service = PackagedService.start("health-1", env, dir.resolve("service.log"));

        service.awaitStatus("/q/health/started", 503, Duration.ofSeconds(90));
        assertEquals(503, service.status("/q/health/ready"));
        assertEquals(200, service.status("/q/health/live"), "the process itself is fine");
        Thread.sleep(3_000); // a retry would have come after 1 s
        assertEquals(1, count(service.output(), "the schema migrations failed, and retrying cannot mend it"),
                "the failure is logged once as such, and not retried");
        assertEquals(0, count(service.output(), "cannot reach PostgreSQL"), "it was not taken for an outage");
    }

    private static int count(String text, String part) {
        return text.split(java.util.regex.Pattern.quote(part), -1).length - 1;
    }

    /** A task submitted now runs to SUCCEEDED: the replica does its work again, not just its probes. */
    private void assertTaskRuns() throws Exception {
        String created = service.post("/api/v1/tasks", "{\"type\":\"noop\",\"payload\":{}}",
                "Authorization", "Bearer " + ADMIN_KEY).body();
        String id = json.readTree(created).path("id").asText();
        await("task " + id + " (created: " + created + ") SUCCEEDED").atMost(SOON).pollInterval(POLL)
                .until(() -> json.readTree(service.get("/api/v1/tasks/" + id, "Authorization", "Bearer " + ADMIN_KEY)
                        .body()).path("status").asText(), "SUCCEEDED"::equals);
    }

    private JsonNode readiness() throws Exception {
        return json.readTree(service.get("/q/health/ready").body());
    }

    private Map<String, String> checks(JsonNode health) {
        Map<String, String> checks = new HashMap<>();
        health.path("checks").forEach(check -> checks.put(check.path("name").asText(), check.path("status").asText()));
        return checks;
    }

    private void awaitCheck(String name, String status) {
        await(name + " " + status).atMost(SOON).pollInterval(POLL)
                .until(() -> checks(readiness()).get(name), status::equals);
    }

    private static String databaseName() {
        String url = PostgresSchema.DATABASE_URL;
        return url.substring(url.lastIndexOf('/') + 1);
    }

    private static int databasePort() {
        String hostAndPort = PostgresSchema.DATABASE_URL.replaceFirst("^jdbc:postgresql://", "").split("/")[0];
        return hostAndPort.contains(":") ? Integer.parseInt(hostAndPort.substring(hostAndPort.indexOf(':') + 1)) : 5432;
    }

    private void execute(String sql) throws Exception {
        try (Connection connection = DriverManager.getConnection(PostgresSchema.DATABASE_URL, PostgresSchema.USER, "");
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    @AfterEach
    void stopEverything() throws Exception {
        if (service != null) {
            service.close();
        }
        if (redis != null) {
            redis.close();
        }
        if (postgres != null) {
            postgres.close();
        }
        execute("drop schema if exists " + schema + " cascade");
    }
}
