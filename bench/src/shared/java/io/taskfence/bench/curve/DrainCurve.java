package io.taskfence.bench.curve;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ObjDoubleConsumer;

/**
 * The rates of drains of the same size, one after the other on the same JVMs, from the first (cold) one until two in
 * a row are within 5 % of each other (and at least five have run, so that every run has an after-4 figure), or
 * {@code maxDrains} have run: how a deploy's throughput climbs while the
 * JIT compiles, and where it settles. Taskfence's DrainBenchIT (src/bench) and the peers' run (bench/) both compile
 * this one file (bench/src/shared), so both sides stop by one rule.
 */
public final class DrainCurve {

    /** Two drains in a row differing by at most this share of the faster one have converged. */
    static final double TOLERANCE = 0.05;
    /** The drain {@code after4} reports: the 5th, after four drains of warm-up (a deploy's first minute or so). */
    private static final int AFTER = 4;

    private final String side;
    private final int tasks;
    private final int maxDrains;
    private final List<Double> rates = new ArrayList<>();

    public DrainCurve(String side, int tasks, int maxDrains) {
        if (maxDrains < 2) {
            throw new IllegalArgumentException("two drains at least are needed to converge, not " + maxDrains);
        }
        this.side = side;
        this.tasks = tasks;
        this.maxDrains = maxDrains;
    }

    /** One more drain of {@code tasks} that took {@code seconds}; printed as it comes. */
    public void add(double seconds) {
        rates.add(tasks / seconds);
        System.out.printf(Locale.ROOT, "[bench] drain %d: %d tasks in %.3f s, %.0f tasks/s (%s)%n", rates.size(), tasks,
                seconds, tasks / seconds, side);
    }

    public boolean converged() {
        return close(rates.size());
    }

    /** Whether drain {@code k} (from 1) came within the tolerance of the drain before it. */
    private boolean close(int k) {
        return k >= 2 && Math.abs(rates.get(k - 1) - rates.get(k - 2))
                <= TOLERANCE * Math.max(rates.get(k - 1), rates.get(k - 2));
    }

    public boolean done() {
        return converged() && rates.size() > AFTER || rates.size() >= maxDrains;
    }

    /**
     * {@code drain.SIDE.curve.K} for each drain, {@code .cold} (the first), {@code .after4} (the 5th, if it ran),
     * {@code drain.SIDE} the steady rate: the mean of the last two drains, a converged pair (two drains halve the
     * noise of one), {@code .drains} how many ran, and {@code .converge_tasks} the tasks drained until the rate
     * settled for good: through the second drain of the first pair of the unbroken run of close pairs that ends the
     * curve, if it ends so.
     */
    public void record(ObjDoubleConsumer<String> results) {
        String key = "drain." + side;
        for (int k = 1; k <= rates.size(); k++) {
            results.accept(key + ".curve." + k, rates.get(k - 1));
        }
        results.accept(key + ".cold", rates.getFirst());
        if (rates.size() > AFTER) {
            results.accept(key + ".after4", rates.get(AFTER));
        }
        int n = rates.size();
        results.accept(key, n < 2 ? rates.getFirst() : (rates.get(n - 1) + rates.get(n - 2)) / 2);
        results.accept(key + ".drains", n);
        if (converged()) {
            int settled = n;
            while (close(settled - 1)) {
                settled--;
            }
            results.accept(key + ".converge_tasks", (double) settled * tasks);
        } else {
            System.out.printf("[bench] WARNING: %s's drains did not converge within %d drains (%d %% apart at the end)%n",
                    side, maxDrains, Math.round(100 * Math.abs(1 - rates.get(n - 1) / rates.get(n - 2))));
        }
    }
}
