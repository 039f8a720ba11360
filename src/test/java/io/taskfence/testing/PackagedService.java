package io.taskfence.testing;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

import org.awaitility.core.ConditionTimeoutException;

/**
 * The packaged application ({@code target/quarkus-app/quarkus-run.jar}, built by {@code mvnw package}) run
 * as an OS process of its own, on a port of its own, with its output in a file: the service as operators
 * run it, for the tests that run after packaging (failsafe).
 */
public final class PackagedService implements AutoCloseable {

    private static final Path JAR = Path.of("target", "quarkus-app", "quarkus-run.jar");
    private static final int FIRST_PORT = 20_000;
    private static final int EPHEMERAL_PORTS = 32_768;

    private final String id;
    private final Process process;
    private final int port;
    private final int managementPort;
    private final Path log;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private PackagedService(String id, Process process, int port, int managementPort, Path log) {
        this.id = id;
        this.process = process;
        this.port = port;
        this.managementPort = managementPort;
        this.log = log;
    }

    /**
     * Starts the service on a free port, and its management interface on another, with {@code environment}
     * added to this process's own.
     */
    public static PackagedService start(String id, Map<String, String> environment, Path log) throws IOException {
        if (!Files.isRegularFile(JAR)) {
            throw new IllegalStateException(JAR + " is missing: these tests run after `mvnw package` (failsafe)");
        }
        Files.createDirectories(log.getParent());
        int port = freePort();
        int managementPort = freePort();
        while (managementPort == port) {
            managementPort = freePort();
        }
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m"));
        // The benchmarks run the service as shipped: with the JDK's AOT cache its build recorded (scripts/lib/bench.sh).
        String aotCache = System.getProperty("bench.aot-cache", "");
        if (!aotCache.isBlank()) {
            // AOTMode=on: a cache the JVM cannot use fails the start instead of measuring the jar without it.
            command.addAll(List.of("-XX:AOTMode=on", "-XX:AOTCache=" + Path.of(aotCache).toAbsolutePath()));
        }
        // Options for Taskfence's replicas alone (BENCH_REPLICA_JVM_OPTIONS), where BENCH_JVM_OPTIONS reaches the peers too.
        String replicaOptions = System.getProperty("bench.replica-jvm-options", "").strip();
        if (!replicaOptions.isEmpty()) {
            command.addAll(List.of(replicaOptions.split("\\s+")));
        }
        command.addAll(List.of("-jar", JAR.toAbsolutePath().toString()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        builder.environment().put("QUARKUS_HTTP_PORT", Integer.toString(port));
        builder.environment().put("QUARKUS_MANAGEMENT_PORT", Integer.toString(managementPort));
        builder.environment().put("TASKFENCE_REPLICA_ID", id);
        return new PackagedService(id, builder.start(), port, managementPort, log);
    }

    public String id() {
        return id;
    }

    public Process process() {
        return process;
    }

    public long pid() {
        return process.pid();
    }

    public Path log() {
        return log;
    }

    /** {@code path} on this replica: under {@code /q/} on the management interface, as operators reach it. */
    public URI uri(String path) {
        return URI.create("http://127.0.0.1:" + (path.startsWith("/q/") ? managementPort : port) + path);
    }

    /** GETs {@code path}, with {@code headers} given as name, value, name, value... */
    public HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).GET();
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** POSTs a JSON body to {@code path}, with {@code headers} given as name, value, name, value... */
    public HttpResponse<String> post(String path, String json, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json));
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** DELETEs {@code path}, with {@code headers} given as name, value, name, value... */
    public HttpResponse<String> delete(String path, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).DELETE();
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The HTTP status {@code path} answers with, or -1 while nothing listens. */
    public int status(String path) throws InterruptedException {
        try {
            return get(path).statusCode();
        } catch (IOException notListening) {
            return -1;
        }
    }

    /**
     * Waits until {@code path} answers {@code status}, from this process: its log says it listens on its ports (with
     * tests running beside each other, a port found free may be taken by another process before this one binds it,
     * and that one would answer). Fails if the process exits ({@link PortTakenException} if a port was taken) or
     * {@code atMost} passes.
     */
    public void awaitStatus(String path, int status, Duration atMost) {
        Pattern listening = Pattern.compile("Listening on: https?://[^ ]+:" + port
                + "\\. Management interface listening on https?://[^ ]+:" + managementPort + "\\.");
        AtomicReference<String> lastAnswer = new AtomicReference<>("nothing");
        try {
            await(id + ": " + path + " answers " + status + " (see " + log + ")").atMost(atMost)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        if (!process.isAlive()) {
                            process.waitFor();
                            // Quarkus words a taken HTTP port so; a taken management port only as the bind's cause.
                            if (output().contains("seems to be in use by another process")
                                    || output().contains("Address already in use")) {
                                throw new PortTakenException(id + ": a port of its was taken before it could bind it; see " + log);
                            }
                            // CI keeps the output, not the log file: say here why it stopped.
                            throw new IllegalStateException(id + " exited (" + process.exitValue() + "); see " + log
                                    + "\nits log's last warnings and errors:\n" + lastWarnings(10));
                        }
                        if (!listening.matcher(output()).find()) {
                            return -1;
                        }
                        try {
                            HttpResponse<String> answer = get(path);
                            lastAnswer.set(answer.statusCode() + " " + answer.body());
                            return answer.statusCode();
                        } catch (IOException notAnswering) {
                            lastAnswer.set(notAnswering.toString());
                            return -1;
                        }
                    }, answered -> answered == status);
        } catch (ConditionTimeoutException timedOut) {
            // CI keeps the output, not the replica's log file: say here why it never answered so.
            throw new AssertionError(timedOut.getMessage() + "\nlast answer: " + lastAnswer.get()
                    + "\nits log's last warnings and errors:\n" + lastWarnings(10), timedOut);
        }
    }

    /** The last {@code count} lines of the log at level WARN or ERROR. */
    private String lastWarnings(int count) {
        List<String> warnings;
        try {
            warnings = output().lines()
                    .filter(line -> line.contains("\"level\":\"WARN") || line.contains("\"level\":\"ERROR")).toList();
        } catch (IOException unreadable) {
            return "(unreadable: " + unreadable + ")";
        }
        return String.join("\n", warnings.subList(Math.max(0, warnings.size() - count), warnings.size()));
    }

    /** A replica that could not start because another process took one of its ports first: start it again. */
    public static final class PortTakenException extends IllegalStateException {
        PortTakenException(String message) {
            super(message);
        }
    }

    /** Sends {@code signal} (e.g. STOP, CONT, KILL, TERM) to the process. */
    public void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + pid() + " failed");
        }
    }

    /** The output so far. */
    public String output() throws IOException {
        return Files.readString(log);
    }

    /** Kills the process (SIGKILL) and waits for it; a test that wants a graceful stop signals TERM itself. */
    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /**
     * A port nothing listens on right now, below Linux's ephemeral range (32768 up): a port the kernel picked would be
     * one it may give any outgoing connection (to PostgreSQL, to Redis) before the process it is meant for binds it.
     */
    public static int freePort() throws IOException {
        for (int tries = 0; tries < 200; tries++) {
            int port = ThreadLocalRandom.current().nextInt(FIRST_PORT, EPHEMERAL_PORTS);
            try (ServerSocket socket = new ServerSocket()) {
                socket.bind(new InetSocketAddress(port)); // every address, as the services bind theirs
                return port;
            } catch (BindException taken) {
                // another one
            }
        }
        throw new IOException("no free port from " + FIRST_PORT + " to " + (EPHEMERAL_PORTS - 1));
    }
}
