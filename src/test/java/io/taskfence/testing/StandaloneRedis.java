package io.taskfence.testing;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} of a test's own on a port of its choosing, keeping nothing on disk: it can be
 * flushed, stopped and started again without touching the Redis other tests share.
 */
public final class StandaloneRedis implements AutoCloseable {

    private final int port;
    private final Process server;

    private StandaloneRedis(int port, Process server) {
        this.port = port;
        this.server = server;
    }

    /** Starts one on {@code port}, logging into {@code dir}, and waits until it answers PING. */
    public static StandaloneRedis start(int port, Path dir) throws IOException, InterruptedException {
        return start(port, dir, List.of());
    }

    /** As {@link #start(int, Path)}, with more {@code redis-server} options (e.g. {@code --replicaof host port}). */
    public static StandaloneRedis start(int port, Path dir, List<String> options) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path log = dir.resolve("redis-" + port + ".log");
        List<String> command = new ArrayList<>(List.of("redis-server", "--bind", "127.0.0.1", "--port",
                Integer.toString(port), "--save", "", "--appendonly", "no", "--dir", dir.toString()));
        command.addAll(options);
        Process server = new ProcessBuilder(command)
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        StandaloneRedis redis = new StandaloneRedis(port, server);
        try {
            await("redis-server on port " + port + " answers PING (see " + log + ")").atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(100)).ignoreException(IllegalStateException.class)
                    .failFast("redis-server on port " + port + " exited; see " + log, () -> !server.isAlive())
                    .until(() -> redis.cli("ping"), "PONG"::equals);
        } catch (RuntimeException | Error notStarted) {
            server.destroyForcibly();
            throw notStarted;
        }
        return redis;
    }

    public int port() {
        return port;
    }

    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    /** Runs a command with {@code redis-cli}; its output, trimmed. */
    public String cli(String... command) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port)));
        line.addAll(List.of(command));
        Process cli = new ProcessBuilder(line).redirectErrorStream(true).start();
        String out = new String(cli.getInputStream().readAllBytes()).trim();
        if (!cli.waitFor(10, TimeUnit.SECONDS) || cli.exitValue() != 0) {
            throw new IllegalStateException("redis-cli " + String.join(" ", command) + " failed: " + out);
        }
        return out;
    }

    /** Sends {@code signal} (e.g. STOP, CONT) to the server process. */
    public void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(server.pid())).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + server.pid() + " failed");
        }
    }

    /** A field of {@code INFO replication} (e.g. {@code role}, {@code master_link_status}), or "" if absent. */
    public String replication(String field) throws IOException, InterruptedException {
        for (String line : cli("info", "replication").split("\\R")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        return "";
    }

    /** Stops it at once (SIGKILL), as a crash would, and waits until the port is free. */
    @Override
    public void close() throws InterruptedException {
        server.destroyForcibly();
        server.waitFor(10, TimeUnit.SECONDS);
    }
}
