package io.taskfence.task;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Test support: threads that start at the same instant, for the races tests. */
final class Race {

    @FunctionalInterface
    interface Racer {
        void run(int racer) throws Exception;
    }

    private Race() {
    }

    /** Starts {@code racers} threads at the same instant, each running {@code body}, and waits for all of them. */
    static void run(int racers, Racer body) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(racers);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int r = 0; r < racers; r++) {
                int racer = r;
                running.add(pool.submit(() -> {
                    start.await();
                    body.run(racer);
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : running) {
                future.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
