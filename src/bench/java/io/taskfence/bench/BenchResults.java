package io.taskfence.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Locale;

/**
 * Where a benchmark leaves its figures: one {@code key<TAB>value} line each in {@code bench.results}
 * (target/bench/results.tsv), which {@code scripts/dev.sh bench} prints as a table (docs/performance.md reads it).
 */
public final class BenchResults {

    private BenchResults() {
    }

    /** How many tasks a drain or submit run uses ({@code -Dbench.tasks}; 20,000, or 500 for the smoke run). */
    public static int tasks() {
        return Integer.getInteger("bench.tasks", 20_000);
    }

    /**
     * How many rounds of untimed submissions come before LatencyBenchIT's timed ones ({@code -Dbench.warm-ups}):
     * 100 tasks a round. The drains no longer count warm-ups: they run until they converge (see maxDrains()).
     */
    public static int warmUps() {
        return Integer.getInteger("bench.warm-ups", 4);
    }

    /**
     * The most drains DrainBenchIT makes while waiting for two in a row within 5 % of each other
     * ({@code -Dbench.max-drains}; the peer gets the same): on this 2-core machine each replica's JIT compiler
     * keeps taking CPU for several drains of 20,000 tasks, and the steady figure should measure the data path, as
     * the native binary (which compiles nothing at run time) would run it.
     */
    public static int maxDrains() {
        return Integer.getInteger("bench.max-drains", 20);
    }

    /** How many back-to-back windows of 5 s SubmitBenchIT loads a fresh replica with ({@code -Dbench.submit-windows}). */
    public static int submitWindows() {
        return Integer.getInteger("bench.submit-windows", 12);
    }

    /**
     * Whether the drain waits for PostgreSQL's statistics to settle before and after it is counted (11 s of quiet
     * each time): {@code -Dbench.settle=false} in the test suite's smoke run, whose figures mean little.
     */
    static boolean settleStatistics() {
        return Boolean.parseBoolean(System.getProperty("bench.settle", "true"));
    }

    /** How long each timed run lasts ({@code -Dbench.seconds}). */
    public static Duration runTime() {
        return Duration.ofSeconds(Integer.getInteger("bench.seconds", 10));
    }

    public static void record(String key, double value) {
        String line = key + "\t" + String.format(Locale.ROOT, "%.3f", value) + System.lineSeparator();
        Path file = Path.of(System.getProperty("bench.results", "target/bench/results.tsv"));
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        System.out.printf("[bench] %s = %s%n", key, line.strip().substring(key.length() + 1));
    }
}
