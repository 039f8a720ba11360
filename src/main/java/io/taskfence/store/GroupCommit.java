package io.taskfence.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.jboss.logging.Logger;

/**
 * Writes to the task table in groups: one writer thread takes every item waiting (at most a bound) and
 * hands them to one write, and the items that arrive meanwhile go together in the next. Nothing waits for a
 * timer, so a lone item is written at once; under load many share one statement and one commit, which is
 * what a durable write costs here. The write answers each item itself (it must not throw).
 */
public final class GroupCommit<T> {

    private static final Logger LOG = Logger.getLogger(GroupCommit.class);

    private final BlockingQueue<T> waiting = new LinkedBlockingQueue<>();
    private final int mostAtOnce;
    private final Consumer<List<T>> write;
    private final Thread writer;
    private volatile boolean closed;

    /** Starts the writer thread, named {@code writerName}. */
    public GroupCommit(String writerName, int mostAtOnce, Consumer<List<T>> write) {
        this.mostAtOnce = mostAtOnce;
        this.write = write;
        this.writer = Thread.ofPlatform().name(writerName).daemon().start(this::writeUntilClosed);
    }

    /** Queues {@code item} for the next group; false, and nothing queued, once closed. */
    public boolean add(T item) {
        synchronized (this) { // never added after close has let the writer go
            if (closed) {
                return false;
            }
            waiting.add(item);
            return true;
        }
    }

    private void writeUntilClosed() {
        List<T> group = new ArrayList<>();
        while (!closed || !waiting.isEmpty()) {
            try {
                T first = waiting.poll(100, TimeUnit.MILLISECONDS); // to see the close
                if (first == null) {
                    continue;
                }
                group.add(first);
                waiting.drainTo(group, mostAtOnce - 1);
                write.accept(group);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                // A write that broke its contract must not stop the writer: later groups still get written.
                LOG.errorf(e, "%s: writing a group of %d failed unanswered", writer.getName(), group.size());
            } finally {
                group.clear();
            }
        }
    }

    /**
     * Stops taking items, lets the writer write what is queued for at most {@code atMost}, and returns
     * what it did not get to: the caller answers those.
     */
    public List<T> close(Duration atMost) throws InterruptedException {
        synchronized (this) {
            closed = true;
        }
        writer.join(atMost.toMillis());
        List<T> left = new ArrayList<>();
        waiting.drainTo(left);
        return left;
    }
}
