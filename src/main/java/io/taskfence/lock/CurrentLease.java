package io.taskfence.lock;

import java.util.Optional;
import java.util.concurrent.Callable;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * The lease of the {@link Fenced} method running on this thread, so that a {@code @Scheduled} method
 * (which may take no parameter of its own) can pass its token to the writes it makes.
 */
@ApplicationScoped
public class CurrentLease {

    private final ThreadLocal<FencedLease> held = new ThreadLocal<>();

    /** @throws IllegalStateException outside a {@link Fenced} method */
    public FencedLease get() {
        return find().orElseThrow(() -> new IllegalStateException("no @Fenced method runs on this thread"));
    }

    public Optional<FencedLease> find() {
        return Optional.ofNullable(held.get());
    }

    <T> T runWith(FencedLease lease, Callable<T> work) throws Exception {
        FencedLease outer = held.get();
        held.set(lease);
        try {
            return work.call();
        } finally {
            if (outer == null) {
                held.remove();
            } else {
                held.set(outer);
            }
        }
    }
}
