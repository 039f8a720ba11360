package io.taskfence.testing;

import java.io.IOException;
import java.net.URI;
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
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Several replicas of the packaged service ({@code target/quarkus-app/quarkus-run.jar}), each an OS process
 * of its own on its own port, sharing one PostgreSQL schema and one Redis server that exist for this
 * cluster alone: a Redis of its own (started here with {@code redis-server}) can be flushed, and its
 * keys never meet another run's. Every status change the replicas make is recorded by a trigger in
 * {@code transition_audit}, so that a test can check that each one was an edge of the state machine
 * (unless started {@link #startWithoutAudit without it}). Used by the replica tests and the benchmarks.
 * {@link #startWithSentinels Started with sentinels}, the replicas reach a {@link RedisSentinelGroup} of the
 * cluster's own through the sentinels, configured as an operator would; {@link #startWithRedisCluster started with
 * a Redis Cluster}, they reach three masters of its own as a cluster client.
 */
public final class ReplicaCluster implements AutoCloseable {

    public static final String ADMIN_KEY = "tf-replicas-9c2e5a0f7d1b38e6c4a2f09d5b7e1c38";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final String name = "replicas-" + UUID.randomUUID().toString().substring(0, 8);
    private final String schema = name.replace('-', '_');
    private final Path dir = Path.of("target", "replicas", name).toAbsolutePath();
    private final Map<String, String> settings;
    // Copy-on-write: the chaos run restarts a replica while its load threads read the list.
    private final List<PackagedService> replicas = new CopyOnWriteArrayList<>();
    private StandaloneRedis redis;
    private RedisSentinelGroup sentinels;
    private RedisClusterGroup redisCluster;
    /** The replicas' path to PostgreSQL, if the test cuts it; the port stays the same across cuts. */
    private TcpForwarder postgresPath;
    private int postgresPathPort;

    private ReplicaCluster(Map<String, String> settings) {
        this.settings = settings;
    }

    /**
     * Starts {@code count} replicas with short leases and time-outs (so that failures are recovered within
     * seconds) plus {@code overrides}, and waits until each is ready.
     */
    public static ReplicaCluster start(int count, Map<String, String> overrides) throws Exception {
        return start(count, overrides, true, false, false);
    }

    /**
     * As {@link #start(int, Map)}, against a primary, a replica and three sentinels instead of one Redis: the
     * replicas are configured with {@code quarkus.redis.client-type=sentinel}, automatic failover off (see docs/reliability.md).
     */
    public static ReplicaCluster startWithSentinels(int count, Map<String, String> overrides) throws Exception {
        return start(count, overrides, true, true, false);
    }

    /**
     * As {@link #start(int, Map)}, against a Redis Cluster of three masters instead of one Redis: the replicas are
     * configured with {@code quarkus.redis.client-type=cluster} and the masters as seeds.
     */
    public static ReplicaCluster startWithRedisCluster(int count, Map<String, String> overrides) throws Exception {
        return start(count, overrides, true, false, false, true);
    }

    /**
     * As {@link #start(int, Map)}, with the replicas reaching PostgreSQL through a path the test can
     * {@link #cutPostgres() cut} and {@link #restorePostgres() restore}, as a restart of PostgreSQL would look
     * to them; the test itself still reaches it directly ({@link #database()}).
     */
    public static ReplicaCluster startWithPostgresPath(int count, Map<String, String> overrides) throws Exception {
        return start(count, overrides, true, false, true);
    }

    /**
     * As {@link #startWithSentinels(int, Map)} and {@link #startWithPostgresPath(int, Map)} together: for a run that
     * fails Redis and PostgreSQL in turn (the chaos run).
     */
    public static ReplicaCluster startWithSentinelsAndPostgresPath(int count, Map<String, String> overrides)
            throws Exception {
        return start(count, overrides, true, true, true);
    }

    /**
     * As {@link #start(int, Map)}, without the audit trigger: for measurements, where its extra insert in
     * every transition's transaction would be counted against the service. {@code transition_audit} is
     * then absent.
     */
    public static ReplicaCluster startWithoutAudit(int count, Map<String, String> overrides) throws Exception {
        return start(count, overrides, false, false, false);
    }

    private static ReplicaCluster start(int count, Map<String, String> overrides, boolean audited,
            boolean withSentinels, boolean postgresPath) throws Exception {
        return start(count, overrides, audited, withSentinels, postgresPath, false);
    }

    private static ReplicaCluster start(int count, Map<String, String> overrides, boolean audited,
            boolean withSentinels, boolean postgresPath, boolean withRedisCluster) throws Exception {
        Map<String, String> settings = new HashMap<>(Map.of(
                "TASKFENCE_LOCK_LEASE", "2s",
                "TASKFENCE_DISPATCH_INTERVAL", "1s",
                "TASKFENCE_WORKER_LEASE", "3s",
                "TASKFENCE_WORKER_DRAIN_TIMEOUT", "5s",
                "TASKFENCE_RECOVERY_INTERVAL", "1s",
                "TASKFENCE_RECOVERY_ENQUEUED_TIMEOUT", "20s",
                "TASKFENCE_RETRY_BACKOFF_BASE", "100ms",
                "TASKFENCE_RETRY_BACKOFF_CAP", "1s",
                // The scenarios run sleep tasks; the packaged service runs the prod profile, where they are off.
                "TASKFENCE_HANDLERS_DEMO_ENABLED", "true",
                "QUARKUS_REDIS_TIMEOUT", "1s"));
        settings.putAll(overrides);
        ReplicaCluster cluster = new ReplicaCluster(settings);
        try {
            if (withSentinels) {
                cluster.sentinels = RedisSentinelGroup.start(cluster.dir);
            } else if (withRedisCluster) {
                cluster.redisCluster = RedisClusterGroup.start(cluster.dir);
            } else {
                cluster.redis = StandaloneRedis.start(PackagedService.freePort(), cluster.dir);
            }
            cluster.createSchema();
            if (postgresPath) {
                cluster.postgresPathPort = PackagedService.freePort();
                cluster.restorePostgres();
            }
            // The first replica migrates the schema; the audit trigger goes onto the migrated table.
            cluster.launch(0);
            cluster.awaitReady(0);
            if (audited) {
                cluster.installAudit();
            }
            for (int i = 1; i < count; i++) {
                cluster.launch(i);
            }
            for (int i = 1; i < count; i++) {
                cluster.awaitReady(i);
            }
            return cluster;
        } catch (Exception | Error e) {
            try {
                cluster.close();
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    public List<PackagedService> replicas() {
        return List.copyOf(replicas);
    }

    public PackagedService replica(String id) {
        return replicas.stream().filter(r -> r.id().equals(id)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no replica " + id));
    }

    /** The Redis key prefix every replica uses (the default: this Redis is the cluster's own). */
    public String key(String suffix) {
        return "taskfence:" + suffix;
    }

    /**
     * Runs a command against the cluster's Redis (the primary now; in a Redis Cluster, the node that owns the
     * command's key) with {@code redis-cli}; its output, trimmed.
     */
    public String redis(String... command) throws IOException, InterruptedException {
        if (redisCluster != null) {
            return redisCluster.cli(command);
        }
        return (sentinels != null ? sentinels.primary() : redis).cli(command);
    }

    /** The Redis Cluster, if the cluster was {@link #startWithRedisCluster started with one}. */
    public RedisClusterGroup redisCluster() {
        if (redisCluster == null) {
            throw new IllegalStateException("this cluster runs without a Redis Cluster");
        }
        return redisCluster;
    }

    /** The sentinel group, if the cluster was {@link #startWithSentinels started with one}. */
    public RedisSentinelGroup sentinels() {
        if (sentinels == null) {
            throw new IllegalStateException("this cluster runs on one Redis, without sentinels");
        }
        return sentinels;
    }

    /** A connection to the cluster's schema. */
    public Connection database() throws SQLException {
        return DriverManager.getConnection(PostgresSchema.DATABASE_URL + "?currentSchema=" + schema,
                PostgresSchema.USER, "");
    }

    /** POSTs {@code json} to {@code path} on {@code replica} with the admin key; the response. */
    public HttpResponse<String> post(PackagedService replica, String path, String json) throws IOException, InterruptedException {
        return replica.post(path, json, "Authorization", "Bearer " + ADMIN_KEY);
    }

    /** GETs {@code path} from {@code replica} with the admin key; the response. */
    public HttpResponse<String> get(PackagedService replica, String path) throws IOException, InterruptedException {
        return replica.get(path, "Authorization", "Bearer " + ADMIN_KEY);
    }

    /**
     * Drops every connection of the replicas to PostgreSQL and refuses new ones, as PostgreSQL does while it
     * restarts: their statements fail at once.
     */
    public void cutPostgres() {
        postgresPath().close();
    }

    /** PostgreSQL answers the replicas again, on the same address. */
    public void restorePostgres() throws IOException {
        URI database = URI.create(PostgresSchema.DATABASE_URL.substring("jdbc:".length()));
        postgresPath = TcpForwarder.open(postgresPathPort, database.getPort());
    }

    /**
     * The replicas' path to PostgreSQL stops delivering, as a partition does: their statements hang until
     * {@link #resumePostgres()} (or their own time-outs), and the connections that sent meanwhile are dropped then.
     */
    public void stallPostgres() {
        postgresPath().stall();
    }

    /** Ends {@link #stallPostgres()}. */
    public void resumePostgres() {
        postgresPath().resume();
    }

    /**
     * Kills {@code replica} (SIGKILL) if it still runs and starts it again with the same id and settings, as an
     * orchestrator restarts a crashed pod; its output goes to a new log file. Does not wait until it is ready.
     *
     * @return the new process, which takes the old one's place in {@link #replicas()}
     */
    public PackagedService restart(PackagedService replica) throws IOException, InterruptedException {
        int index = replicas.indexOf(replica);
        if (index < 0) {
            throw new IllegalArgumentException(replica.id() + " is not a current replica of " + name);
        }
        replica.close();
        long starts = 1;
        while (Files.exists(dir.resolve(replica.id() + "-" + starts + ".log"))) {
            starts++;
        }
        // set, not remove and add: a reader meanwhile sees this replica's old process or its new one, never neither.
        PackagedService restarted = PackagedService.start(replica.id(), environment(),
                dir.resolve(replica.id() + "-" + starts + ".log"));
        replicas.set(index, restarted);
        return restarted;
    }

    private TcpForwarder postgresPath() {
        if (postgresPath == null) {
            throw new IllegalStateException("this cluster reaches PostgreSQL directly");
        }
        return postgresPath;
    }

    private String replicasDatabaseUrl() {
        String direct = PostgresSchema.DATABASE_URL + "?currentSchema=" + schema;
        if (postgresPath == null) {
            return direct;
        }
        URI database = URI.create(PostgresSchema.DATABASE_URL.substring("jdbc:".length()));
        return "jdbc:postgresql://127.0.0.1:" + postgresPathPort + database.getPath() + "?currentSchema=" + schema;
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

    private PackagedService launch(int index) throws IOException {
        String id = "replica-" + index;
        PackagedService replica = PackagedService.start(id, environment(), dir.resolve(id + ".log"));
        replicas.add(replica);
        return replica;
    }

    /** Waits until replica {@code index} is ready; started again on other ports (twice at most) if one was taken. */
    private void awaitReady(int index) throws IOException {
        for (int attempt = 1;; attempt++) {
            PackagedService replica = replicas.get(index);
            try {
                replica.awaitStatus("/q/health/ready", 200, START_TIMEOUT);
                return;
            } catch (PackagedService.PortTakenException taken) {
                if (attempt == 3) {
                    throw taken;
                }
                replicas.set(index, PackagedService.start(replica.id(), environment(),
                        dir.resolve(replica.id() + "-port-" + attempt + ".log")));
            }
        }
    }

    private Map<String, String> environment() {
        Map<String, String> env = new HashMap<>(settings);
        if (sentinels != null) {
            env.put("QUARKUS_REDIS_CLIENT_TYPE", "sentinel");
            env.put("QUARKUS_REDIS_HOSTS", sentinels.hosts());
            env.put("QUARKUS_REDIS_MASTER_NAME", RedisSentinelGroup.MASTER_NAME);
            env.put("QUARKUS_REDIS_ROLE", "master");
        } else if (redisCluster != null) {
            env.put("QUARKUS_REDIS_CLIENT_TYPE", "cluster");
            env.put("QUARKUS_REDIS_HOSTS", redisCluster.hosts());
        } else {
            env.put("QUARKUS_REDIS_HOSTS", redis.url());
        }
        env.put("QUARKUS_DATASOURCE_JDBC_URL", replicasDatabaseUrl());
        env.put("QUARKUS_DATASOURCE_USERNAME", PostgresSchema.USER);
        env.put("QUARKUS_FLYWAY_SCHEMAS", schema);
        env.put("TASKFENCE_AUTH_KEYS_REPLICAS_SECRET", ADMIN_KEY);
        env.put("TASKFENCE_AUTH_KEYS_REPLICAS_ROLE", "admin");
        return env;
    }

    /** Stops every replica (SIGKILL: the tests that need a graceful stop do it themselves), Redis, the schema. */
    @Override
    public void close() {
        for (PackagedService replica : replicas) {
            replica.process().destroyForcibly();
        }
        for (PackagedService replica : replicas) {
            try {
                replica.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            if (redis != null) {
                redis.close();
            }
            if (sentinels != null) {
                sentinels.close();
            }
            if (redisCluster != null) {
                redisCluster.close();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (postgresPath != null) {
            postgresPath.close();
        }
        try (Connection connection = DriverManager.getConnection(PostgresSchema.DATABASE_URL, PostgresSchema.USER, "");
                Statement statement = connection.createStatement()) {
            statement.execute("drop schema if exists " + schema + " cascade");
        } catch (SQLException e) {
            throw new IllegalStateException("could not drop schema " + schema, e);
        }
    }

    @Override
    public String toString() {
        return name + " (logs in " + dir + ")";
    }
}
