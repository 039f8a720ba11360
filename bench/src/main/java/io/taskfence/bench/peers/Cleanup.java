package io.taskfence.bench.peers;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What a benchmark created on the shared servers (a database, Redis keys), undone newest first when the
 * benchmark ends, fails, or the JVM is stopped (Ctrl-C, SIGTERM): other runs and the test suite use the same
 * PostgreSQL and Redis, so nothing of ours may stay behind.
 */
final class Cleanup implements AutoCloseable {

    private record Step(String what, AutoCloseable action) {
    }

    private final Deque<Step> steps = new ArrayDeque<>();
    private final Thread onExit = new Thread(this::undoOnExit, "peers-cleanup");

    Cleanup() {
        Runtime.getRuntime().addShutdownHook(onExit);
    }

    /** Undoes {@code resource} (by closing it) when this clean-up runs; returns it for convenience. */
    synchronized <T extends AutoCloseable> T add(String what, T resource) {
        steps.push(new Step(what, resource));
        return resource;
    }

    @Override
    public void close() {
        RuntimeException failure = undoAll();
        try {
            Runtime.getRuntime().removeShutdownHook(onExit);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run: nothing left to remove
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void undoOnExit() {
        synchronized (this) {
            if (!steps.isEmpty()) {
                System.err.println("[peers] stopped before the end: cleaning up");
            }
        }
        undoAll();
    }

    /** Synchronized so that the exit hook waits for a clean-up under way instead of racing it. */
    private synchronized RuntimeException undoAll() {
        RuntimeException failure = null;
        while (!steps.isEmpty()) {
            Step step = steps.pop();
            try {
                step.action().close();
            } catch (Exception e) {
                System.err.printf("[peers] clean-up failed: %s: %s%n", step.what(), e);
                if (failure == null) {
                    failure = new IllegalStateException("clean-up failed: " + step.what(), e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        return failure;
    }
}
