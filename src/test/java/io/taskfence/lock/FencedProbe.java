package io.taskfence.lock;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.scheduler.Scheduled;

/** Methods guarded by {@link Fenced}, recording what the interceptor let through. */
@ApplicationScoped
public class FencedProbe {

    static final String JOB = "probe-job";
    static final String SCHEDULED_JOB = "probe-scheduled";

    private final CurrentLease current;
    private final List<Long> jobTokens = new CopyOnWriteArrayList<>();
    private final List<Long> scheduledTokens = new CopyOnWriteArrayList<>();
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger mostInside = new AtomicInteger();

    FencedProbe(CurrentLease current) {
        this.current = current;
    }

    /** Tokens of the {@link #work} runs, in the order they ran. */
    List<Long> jobTokens() {
        return List.copyOf(jobTokens);
    }

    /** Tokens of the scheduled runs, in the order they ran. */
    List<Long> scheduledTokens() {
        return List.copyOf(scheduledTokens);
    }

    /** The most {@link #work} calls that were ever running at once. */
    int mostInside() {
        return mostInside.get();
    }

    @Fenced(JOB)
    public String work(long busyMillis) throws InterruptedException {
        mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
        try {
            jobTokens.add(current.get().token());
            Thread.sleep(busyMillis);
            return "ran";
        } finally {
            inside.decrementAndGet();
        }
    }

    @Fenced(value = SCHEDULED_JOB, lease = "10s")
    @Scheduled(every = "0.2s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void tick() {
        scheduledTokens.add(current.get().token());
    }
}
