package io.taskfence.replicas;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.taskfence.testing.PostgresSchema;

/**
 * Several replicas of the packaged service ({@code target/quarkus-app/quarkus-run.jar}), each an OS process
 * of its own on its own port, sharing one PostgreSQL schema and one Redis server that exist for this
 * cluster alone: a Redis of its own (started here with {@code redis-server}) can be flushed, and its
 * keys never meet another run's. Every status change the replicas make is recorded by a trigger in
 * {@code transition_audit}, so that a test can check that each one was an edge of the state machine.
 */
final class ReplicaCluster implements AutoCloseable {

    static final String ADMIN_KEY = "replicas-admin-key";
    private static final Path JAR = Path.of("target", "quarkus-app", "quarkus-run.jar");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    /** One replica: its process, its HTTP port and where its output goes. */
    record Replica(String id, Process process, int port, Path log) {
        URI uri(String path) {
            return URI.create("http://127.0.0.1:" + port + path);
        }

        long pid() {
            return process.pid();
        }
    }

    private final String name = "replicas-" + UUID.randomUUID().toString().substring(0, 8);
    private final String schema = name.replace('-', '_');
    private final Path dir = Path.of("target", "replicas", name).toAbsolutePath();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Map<String, String> settings;
    private final List<Replica> replicas = new ArrayList<>();
    private Process redis;
    private int redisPort;

    private ReplicaCluster(Map<String, String> settings) {
        this.settings = settings;
    }

    /**
     * Starts {@code count} replicas with short leases and time-outs (so that failures are recovered within
     * seconds) plus {@code overrides}, and waits until each is ready.
     */
    static ReplicaCluster start(int count, Map<String, String> overrides) throws Exception {
        Map<String, String> settings = new HashMap<>(Map.of(
                "TASKFENCE_LOCK_LEASE", "2s",
                "TASKFENCE_DISPATCH_INTERVAL", "1s",
                "TASKFENCE_WORKER_LEASE", "3s",
                "TASKFENCE_WORKER_DRAIN_TIMEOUT", "5s",
                "TASKFENCE_RECOVERY_INTERVAL", "1s",
                "TASKFENCE_RECOVERY_ENQUEUED_TIMEOUT", "8s",
                "TASKFENCE_RETRY_BACKOFF_BASE", "100ms",
                "TASKFENCE_RETRY_BACKOFF_CAP", "1s",
                "QUARKUS_REDIS_TIMEOUT", "1s"));
        settings.putAll(overrides);
        ReplicaCluster cluster = new ReplicaCluster(settings);
        try {
            cluster.startRedis();
            cluster.createSchema();
            // The first replica migrates the schema; the audit trigger goes onto the migrated table.
            cluster.awaitReady(cluster.launch(0));
            cluster.installAudit();
            List<Replica> others = new ArrayList<>();
            for (int i = 1; i < count; i++) {
                others.add(cluster.launch(i));
            }
            for (Replica replica : others) {
                cluster.awaitReady(replica);
            }
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    List<Replica> replicas() {
        return List.copyOf(replicas);
    }

    Replica replica(String id) {
        return replicas.stream().filter(r -> r.id().equals(id)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no replica " + id));
    }

    /** The Redis key prefix every replica uses (the default: this Redis is the cluster's own). */
    String key(String suffix) {
        return "taskfence:" + suffix;
    }

    /** Runs a command against the cluster's Redis with {@code redis-cli}; its output, trimmed. */
    String redis(String... command) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(redisPort)));
        line.addAll(List.of(command));
        Process cli = new ProcessBuilder(line).redirectErrorStream(true).start();
        String out = new String(cli.getInputStream().readAllBytes()).trim();
        if (!cli.waitFor(10, TimeUnit.SECONDS) || cli.exitValue() != 0) {
            throw new IllegalStateException("redis-cli " + String.join(" ", command) + " failed: " + out);
        }
        return out;
    }

    /** A connection to the cluster's schema. */
    Connection database() throws SQLException {
        return DriverManager.getConnection(PostgresSchema.DATABASE_URL + "?currentSchema=" + schema,
                PostgresSchema.USER, "");
    }

    /** POSTs {@code json} to {@code path} on {@code replica} with the admin key; the response. */
    HttpResponse<String> post(Replica replica, String path, String json) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(replica.uri(path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + ADMIN_KEY).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** GETs {@code path} from {@code replica} with the admin key; the response. */
    HttpResponse<String> get(Replica replica, String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(replica.uri(path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + ADMIN_KEY).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Sends {@code signal} (e.g. STOP, CONT, KILL, TERM) to the replica's process. */
    void signal(Replica replica, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(replica.pid())).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + replica.pid() + " failed");
        }
    }

    /** The replica's output so far. */
    String log(Replica replica) throws IOException {
        return Files.readString(replica.log());
    }

    private void startRedis() throws IOException, InterruptedException {
        Files.createDirectories(dir);
        redisPort = freePort();
        redis = new ProcessBuilder("redis-server", "--bind", "127.0.0.1", "--port", Integer.toString(redisPort),
                "--save", "", "--appendonly", "no", "--dir", dir.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                if ("PONG".equals(redis("ping"))) {
                    return;
                }
            } catch (IllegalStateException notYet) {
                if (System.nanoTime() > deadline || !redis.isAlive()) {
                    throw new IllegalStateException("redis-server on port " + redisPort + " did not start; see "
                            + dir.resolve("redis.log"), notYet);
                }
            }
            Thread.sleep(100);
        }
    }

    private void createSchema() throws SQLException {
        try (Connection connection = DriverManager.getConnection(PostgresSchema.DATABASE_URL, PostgresSchema.USER, "");
                Statement statement = connection.createStatement()) {
            statement.execute("create schema " + schema);
        }
    }

    private void installAudit() throws SQLException {
        try (Connection connection = database(); Statement statement = connection.createStatement()) {
            statement.execute("create table " + schema + ".transition_audit (id bigserial primary key, task uuid, "
                    + "from_status text, to_status text, from_attempt int, to_attempt int, "
                    + "at timestamptz default clock_timestamp())");
            statement.execute("create function " + schema + ".audit_transition() returns trigger language plpgsql as $$ "
                    + "begin insert into " + schema + ".transition_audit (task, from_status, to_status, from_attempt, "
                    + "to_attempt) values (old.id, old.status, new.status, old.attempt, new.attempt); return new; end $$");
            statement.execute("create trigger audit_transition after update on " + schema + ".tasks for each row "
                    + "when (old.status is distinct from new.status or old.attempt is distinct from new.attempt) "
                    + "execute function " + schema + ".audit_transition()");
        }
    }

    private Replica launch(int index) throws IOException {
        if (!Files.isRegularFile(JAR)) {
            throw new IllegalStateException(JAR + " is missing: these tests run after `mvnw package` (failsafe)");
        }
        String id = "replica-" + index;
        int port = freePort();
        Path log = dir.resolve(id + ".log");
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m", "-jar", JAR.toAbsolutePath().toString())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = builder.environment();
        env.putAll(settings);
        env.put("QUARKUS_HTTP_PORT", Integer.toString(port));
        env.put("QUARKUS_REDIS_HOSTS", "redis://127.0.0.1:" + redisPort);
        env.put("QUARKUS_DATASOURCE_JDBC_URL", PostgresSchema.DATABASE_URL + "?currentSchema=" + schema);
        env.put("QUARKUS_DATASOURCE_USERNAME", PostgresSchema.USER);
        env.put("QUARKUS_FLYWAY_SCHEMAS", schema);
        env.put("TASKFENCE_REPLICA_ID", id);
        env.put("TASKFENCE_AUTH_ADMIN_KEYS", ADMIN_KEY);
        Replica replica = new Replica(id, builder.start(), port, log);
        replicas.add(replica);
        return replica;
    }

    private void awaitReady(Replica replica) throws Exception {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!replica.process().isAlive()) {
                throw new IllegalStateException(replica.id() + " exited at start-up; see " + replica.log());
            }
            try {
                if (http.send(HttpRequest.newBuilder(replica.uri("/q/health/ready")).timeout(Duration.ofSeconds(5))
                        .build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notListeningYet) {
                // keep waiting
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(replica.id() + " was not ready within " + START_TIMEOUT + "; see " + replica.log());
    }

    /** Stops every replica (SIGKILL: the tests that need a graceful stop do it themselves), Redis, the schema. */
    @Override
    public void close() {
        for (Replica replica : replicas) {
            replica.process().destroyForcibly();
        }
        for (Replica replica : replicas) {
            try {
                replica.process().waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (redis != null) {
            redis.destroyForcibly();
        }
        try (Connection connection = DriverManager.getConnection(PostgresSchema.DATABASE_URL, PostgresSchema.USER, "");
                Statement statement = connection.createStatement()) {
            statement.execute("drop schema if exists " + schema + " cascade");
        } catch (SQLException e) {
            throw new IllegalStateException("could not drop schema " + schema, e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Override
    public String toString() {
        return name + " (logs in " + dir + ")";
    }
}
