package io.taskfence.remote;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The claims waiting for tasks of their types, woken when a type's stream was pushed to (the claimable channel) or
 * when the subscription was made again (a push may have been missed meanwhile). A waiter registers before it looks
 * at the streams, so a push announced while it looks wakes it too: it looks again instead of sleeping through it.
 */
final class ClaimWaits {

    /** One waiting claim: its types, and what completes when one of them may have tasks. */
    record Waiter(Set<String> types, CompletableFuture<Void> woken) {
    }

    private final Set<Waiter> waiting = ConcurrentHashMap.newKeySet();

    Waiter register(Set<String> types) {
        Waiter waiter = new Waiter(types, new CompletableFuture<>());
        waiting.add(waiter);
        return waiter;
    }

    void unregister(Waiter waiter) {
        waiting.remove(waiter);
    }

    /** Tasks of {@code type} were pushed: its waiters look again. */
    void pushed(String type) {
        waiting.forEach(waiter -> {
            if (waiter.types().contains(type)) {
                waiter.woken().complete(null);
            }
        });
    }

    /** Every waiter looks again: the subscription was (re)made, or the service is stopping. */
    void wakeAll() {
        waiting.forEach(waiter -> waiter.woken().complete(null));
    }
}
