package io.taskfence.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Counts the commands the real Redis server receives that mention a given text (a unique key), by
 * running {@code redis-cli MONITOR}: what reached the server, not what the client believes it sent.
 */
public final class RedisMonitor implements AutoCloseable {

    private final Process process;
    private final List<String> matches = new ArrayList<>();

    private RedisMonitor(Process process, String text, CountDownLatch ready) {
        this.process = process;
        Thread.ofPlatform().daemon().name("redis-monitor").start(() -> {
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    if (line.equals("OK")) {
                        ready.countDown();
                    } else if (line.contains(text)) {
                        synchronized (matches) {
                            matches.add(line);
                            matches.notifyAll();
                        }
                    }
                }
            } catch (IOException e) {
                // the process was stopped
            }
        });
    }

    /** Starts monitoring the Redis at {@code redisUrl} (redis://host:port) for commands containing {@code text}. */
    public static RedisMonitor watch(String redisUrl, String text) {
        URI uri = URI.create(redisUrl);
        try {
            Process process = new ProcessBuilder("redis-cli", "-h", uri.getHost(), "-p",
                    Integer.toString(uri.getPort() < 0 ? 6379 : uri.getPort()), "monitor")
                    .redirectErrorStream(true).start();
            CountDownLatch ready = new CountDownLatch(1);
            RedisMonitor monitor = new RedisMonitor(process, text, ready);
            if (!ready.await(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("redis-cli monitor did not start");
            }
            return monitor;
        } catch (IOException e) {
            throw new UncheckedIOException("redis-cli is needed for this test", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Waits until at least {@code count} commands containing {@code text} have been seen. */
    public void awaitCommands(String text, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        synchronized (matches) {
            while (matches.stream().filter(line -> line.contains(text)).count() < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException(count + " commands with " + text + " never reached the monitor");
                }
                TimeUnit.NANOSECONDS.timedWait(matches, left);
            }
        }
    }

    /**
     * The commands seen so far, up to the first one that contains {@code marker}: send a command with
     * the marker after the commands to count, so that none of them is still on its way.
     */
    public List<String> commandsBefore(String marker) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        synchronized (matches) {
            while (true) {
                for (int i = 0; i < matches.size(); i++) {
                    if (matches.get(i).contains(marker)) {
                        return List.copyOf(matches.subList(0, i));
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("marker " + marker + " never reached the monitor");
                }
                TimeUnit.NANOSECONDS.timedWait(matches, left);
            }
        }
    }

    @Override
    public void close() {
        process.destroy();
    }
}
