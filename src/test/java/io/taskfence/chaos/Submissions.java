package io.taskfence.chaos;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the clients of a chaos run were told: the tasks accepted (a 201 or 200 with an id), the submissions
 * refused (503 and anything else, with the idempotency keys they carried), and the requests whose answer never
 * came (a fault cut the connection or the client timed out), kept to be sent again with the same keys.
 */
final class Submissions {

    /** A request whose outcome is unknown: sent again with its idempotency keys until it has one. */
    record Unanswered(String path, String body, Optional<String> idempotencyKey) {
    }

    /** A task a client was given an id for; {@code runAt} when the client asked for a later start. */
    record Accepted(UUID id, Optional<Instant> runAt) {
    }

    private final Map<UUID, Accepted> accepted = new ConcurrentHashMap<>();
    private final Set<String> refusedKeys = ConcurrentHashMap.newKeySet();
    private final Set<String> refusedMaybeMade = ConcurrentHashMap.newKeySet();
    private final Set<String> unansweredKeyless = ConcurrentHashMap.newKeySet();
    private final Map<Integer, AtomicLong> refusedByStatus = new ConcurrentHashMap<>();
    private final Queue<Unanswered> unanswered = new ConcurrentLinkedQueue<>();
    private final AtomicLong unansweredSeen = new AtomicLong();
    // Recent ids, for cancels to pick from: guarded by itself.
    private final List<UUID> recent = new ArrayList<>();
    private final AtomicLong cancelled = new AtomicLong();
    private final AtomicLong cancelRefused = new AtomicLong();
    private final AtomicLong retried = new AtomicLong();
    private final AtomicLong retryRefused = new AtomicLong();
    private final Map<String, UUID> thenTasks = new ConcurrentHashMap<>();

    void accepted(UUID id, Optional<Instant> runAt) {
        accepted.putIfAbsent(id, new Accepted(id, runAt));
        synchronized (recent) {
            recent.add(id);
            if (recent.size() > 2_000) {
                recent.subList(0, 1_000).clear();
            }
        }
    }

    /**
     * A task refused as a whole request or as a batch item; {@code key} its idempotency key, or the payload
     * marker of a submission without one; {@code mayHaveBeenMade} if the answer said the change may or may not
     * have been made (a commit whose connection broke), rather than that nothing was changed.
     */
    void refused(int status, String key, boolean mayHaveBeenMade) {
        refusedByStatus.computeIfAbsent(status, s -> new AtomicLong()).incrementAndGet();
        refusedKeys.add(key);
        if (mayHaveBeenMade) {
            refusedMaybeMade.add(key);
        }
    }

    /** A batch request's then task, by its idempotency key: the answer showed its batch with this then task. */
    void thenAccepted(String key, UUID task) {
        thenTasks.putIfAbsent(key, task);
    }

    /**
     * A batch request answered without a batch (each of its tasks refused): its then task was not stored, as a
     * refused submission's task is not.
     */
    void thenRefused(String key) {
        refusedKeys.add(key);
    }

    /** The then tasks of the batches the clients were shown, by their idempotency keys. */
    Map<String, UUID> thenTasks() {
        return Map.copyOf(thenTasks);
    }

    /** A submission without an idempotency key whose answer was lost: it cannot be asked for again. */
    void unansweredKeyless(String marker) {
        unansweredKeyless.add(marker);
    }

    Set<String> unansweredKeyless() {
        return Set.copyOf(unansweredKeyless);
    }

    void unanswered(Unanswered request) {
        unansweredSeen.incrementAndGet();
        unanswered.add(request);
    }

    /** A request sent again whose answer is still unknown. */
    void requeue(Unanswered request) {
        unanswered.add(request);
    }

    /** The next unanswered request to send again, if any. */
    Optional<Unanswered> takeUnanswered() {
        return Optional.ofNullable(unanswered.poll());
    }

    Optional<UUID> recentTask() {
        synchronized (recent) {
            return recent.isEmpty() ? Optional.empty()
                    : Optional.of(recent.get(ThreadLocalRandom.current().nextInt(recent.size())));
        }
    }

    void cancel(boolean done) {
        (done ? cancelled : cancelRefused).incrementAndGet();
    }

    void retry(boolean done) {
        (done ? retried : retryRefused).incrementAndGet();
    }

    Map<UUID, Accepted> accepted() {
        return Map.copyOf(accepted);
    }

    Set<String> refusedKeys() {
        return Set.copyOf(refusedKeys);
    }

    /** Of the refused keys, those whose answer said the change may or may not have been made. */
    Set<String> refusedMaybeMade() {
        return Set.copyOf(refusedMaybeMade);
    }

    Map<Integer, Long> refusedByStatus() {
        Map<Integer, Long> counts = new TreeMap<>();
        refusedByStatus.forEach((status, count) -> counts.put(status, count.get()));
        return counts;
    }

    long unansweredSeen() {
        return unansweredSeen.get();
    }

    long stillUnanswered() {
        return unanswered.size();
    }

    long cancelled() {
        return cancelled.get();
    }

    long cancelRefused() {
        return cancelRefused.get();
    }

    long retried() {
        return retried.get();
    }

    long retryRefused() {
        return retryRefused.get();
    }
}
