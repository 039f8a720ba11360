package io.taskfence.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * The receiver of a chaos run's callbacks (DESIGN.md, "Callbacks"): an HTTP server on 127.0.0.1 that answers every
 * POST 200 and records the end each one told, as a receiver that must act once keys it: the task's id, status and
 * updatedAt. Delivery is at least once (a replica killed after the POST runs the callback task again), so the
 * same end may arrive more than once; the checker compares the distinct ends with the callback tasks.
 */
final class CallbackReceiver implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PATH = "/chaos-callback";

    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(4);
    private final Set<String> ends = ConcurrentHashMap.newKeySet();
    private final AtomicLong posts = new AtomicLong();

    private CallbackReceiver(HttpServer server) {
        this.server = server;
    }

    static CallbackReceiver start() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        CallbackReceiver receiver = new CallbackReceiver(server);
        server.createContext(PATH, receiver::receive);
        server.setExecutor(receiver.executor);
        server.start();
        return receiver;
    }

    /** The replicas' allow-list entry for this receiver ({@code taskfence.http.allowed-hosts}). */
    String allowedHost() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The URL a task's {@code callback} names. */
    String url() {
        return allowedHost() + PATH;
    }

    /** The key a receiver that acts once keeps per end: the same as the checker builds from a callback task. */
    static String end(String taskId, String status, String updatedAt) {
        return taskId + " " + status + " " + updatedAt;
    }

    private void receive(HttpExchange exchange) throws IOException {
        try (exchange; InputStream body = exchange.getRequestBody()) {
            posts.incrementAndGet();
            JsonNode task = JSON.readTree(body);
            ends.add(end(task.path("id").asText(), task.path("status").asText(), task.path("updatedAt").asText()));
            exchange.sendResponseHeaders(200, -1);
        }
    }

    /** The distinct ends received ({@link #end}). */
    Set<String> ends() {
        return Set.copyOf(ends);
    }

    /** Every POST received, repeats included. */
    long posts() {
        return posts.get();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
