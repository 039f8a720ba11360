package io.taskfence.bench.peers;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.taskfence.bench.curve.DrainCurve;

/**
 * The peers Taskfence's benchmarks are compared with, run by {@code scripts/dev.sh bench}:
 * <ul>
 *   <li>{@code drain.dbscheduler}: N pre-loaded no-op executions drained by db-scheduler 16.12, lock-and-fetch,
 *       3 instances × 8 threads (tasks/s), again and again until two drains in a row are within 5 % (DrainCurve),
 *       against Taskfence's {@code drain.taskfence}; {@code drain.dbscheduler.cold} the first drain of the JVM,
 *       {@code .after4} the 5th, against Taskfence's likewise;</li>
 *   <li>{@code lock.redisson.T}, T = 1, 8, 64: Redisson {@code RLock} acquire + release pairs/s, against
 *       Taskfence's {@code lock.taskfence.T}.</li>
 * </ul>
 * Each figure is appended to the results file as it is measured. Both benchmarks run even if the first fails,
 * so one broken peer does not hide the other; the exit status is 1 if either failed, 2 on a bad command line.
 */
public final class Peers {

    private static final int[] LOCK_THREADS = {1, 8, 64};

    private final Options options;
    private final ResultsFile results;

    private Peers(Options options) {
        this.options = options;
        this.results = new ResultsFile(options.results());
    }

    public static void main(String[] args) {
        Options options;
        try {
            options = Options.parse(List.of(args));
        } catch (IllegalArgumentException e) {
            System.err.println("[peers] " + e.getMessage());
            System.err.println(Options.USAGE);
            System.exit(2);
            return;
        }
        System.exit(new Peers(options).run());
    }

    private int run() {
        List<String> failures = new ArrayList<>();
        attempt("db-scheduler drain", this::drain, failures);
        attempt("Redisson lock pairs", this::lockPairs, failures);
        if (failures.isEmpty()) {
            return 0;
        }
        System.err.println("[peers] FAILED: " + String.join("; ", failures));
        return 1;
    }

    private interface Benchmark {
        void run() throws Exception;
    }

    private static void attempt(String name, Benchmark benchmark, List<String> failures) {
        try {
            benchmark.run();
        } catch (Exception e) {
            System.err.println("[peers] " + name + " failed:");
            e.printStackTrace();
            failures.add(name + ": " + e.getMessage());
        }
    }

    /** The large warm drain's size, in multiples of {@code --tasks}: 100,000 in a full run. */
    private static final int LARGE_DRAIN = 5;

    private void drain() throws Exception {
        System.out.printf("[peers] db-scheduler: draining %d executions with %d instances × %d threads%n",
                options.tasks(), DbSchedulerDrain.INSTANCES, DbSchedulerDrain.THREADS);
        try (Cleanup cleanup = new Cleanup()) {
            BenchDatabase database = cleanup.add("drop database " + BenchDatabase.NAME, BenchDatabase.create());
            // The first drain in this fresh JVM is the cold one (what a deploy sees); then drains of the same size
            // until two in a row agree, as Taskfence's replicas drain: the JIT's warm-up is not the steady figure.
            DrainCurve curve = new DrainCurve("dbscheduler", options.tasks(), options.maxDrains());
            do {
                DbSchedulerDrain.Result drain = new DbSchedulerDrain(database).run(options.tasks());
                if (drain.handled() > drain.tasks()) {
                    // db-scheduler may, rarely, run an execution twice; the figure stands, the duplicate is reported
                    System.out.printf("[peers] WARNING: db-scheduler ran the handler %d times for %d executions"
                            + " (%d duplicate runs)%n", drain.handled(), drain.tasks(), drain.handled() - drain.tasks());
                }
                curve.add(drain.drainTime().toNanos() / 1e9);
            } while (!curve.done());
            curve.record(results::record);
            // A larger warm drain (Taskfence's DrainBenchIT drains as many): what a backlog five times the size costs.
            DbSchedulerDrain.Result large = new DbSchedulerDrain(database).run(LARGE_DRAIN * options.tasks());
            System.out.printf("[peers] db-scheduler drained %d executions in %.3f s%n",
                    large.tasks(), large.drainTime().toNanos() / 1e9);
            results.record("drain.dbscheduler.large", large.tasksPerSecond());
        }
    }

    private void lockPairs() throws Exception {
        try (Cleanup cleanup = new Cleanup()) {
            BenchRedis redis = cleanup.add("delete Redis keys and shut Redisson down", BenchRedis.connect());
            System.out.printf("[peers] Redisson: lock pairs under %s*, %d s warm-up then %d s counted per thread"
                    + " count%n", redis.keyPrefix(), RedissonLockPairs.WARM_UP.toSeconds(), options.seconds());
            RedissonLockPairs locks = new RedissonLockPairs(redis.client(), redis.keyPrefix(),
                    Duration.ofSeconds(options.seconds()));
            for (int threads : LOCK_THREADS) {
                RedissonLockPairs.Result pairs = locks.measure(threads);
                if (pairs.refused() > 0) {
                    System.out.printf("[peers] WARNING: %d tryLock calls refused with %d threads, each on its own"
                            + " lock%n", pairs.refused(), threads);
                }
                results.record("lock.redisson." + threads, pairs.pairsPerSecond());
            }
        }
    }
}
