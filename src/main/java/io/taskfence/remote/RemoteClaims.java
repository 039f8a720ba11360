package io.taskfence.remote;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;

import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.taskfence.TaskfenceConfig;
import io.taskfence.lock.LockSettings;
import io.taskfence.queue.TaskQueue;
import io.taskfence.queue.TaskQueue.Message;
import io.taskfence.signals.SignalChannel;
import io.taskfence.task.Task;
import io.taskfence.task.query.TaskQueries;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.TasksBecameDue;
import io.taskfence.task.transition.AttemptTransitions;
import io.taskfence.task.transition.Claim;
import io.taskfence.task.transition.Completion;
import io.taskfence.types.RemoteTypes;
import io.taskfence.types.TypeLimits;

/**
 * Claims for remote workers (DESIGN.md, "Remote workers"). A claim request reads the streams of the types it names
 * on the worker's behalf, claims their tasks through {@link AttemptTransitions#claim} as this replica's own workers
 * do, and acknowledges the messages; when none are there it waits, without holding a thread or a Redis connection,
 * until a push to one of its types is announced (or a second has passed, should the announcement be lost) and looks
 * again, up to the wait it asked for. The claim's later writes (heartbeat, complete, fail) name it, so each is
 * refused once the claim no longer holds the task ({@link ClaimSupersededException}).
 */
@ApplicationScoped
public class RemoteClaims {

    private static final Logger LOG = Logger.getLogger(RemoteClaims.class);
    /** A waiting claim looks again this often even without an announcement: a lost one costs at most this. */
    private static final Duration LOOK_AGAIN = Duration.ofSeconds(1);
    /** How the workers' claim ids start: {@code remote:<key>:<worker name>/<uuid>}. */
    private static final String CLAIMER_PREFIX = "remote:";

    /** One claim request: who claims, for which types, how many at most, until when it may wait. */
    private record Request(String claimer, List<String> types, int max, long deadlineNanos) {
    }

    private final TaskQueue queue;
    private final AttemptTransitions transitions;
    private final TaskQueries queries;
    private final RemoteTypes remote;
    private final Event<TasksBecameDue> due;
    private final SignalChannel claimable;
    private final ClaimWaits waits = new ClaimWaits();
    private final Duration lease;
    private final String consumer;
    /** Whether a remote task ending can make room for another: dispatch should look again soon. */
    private final boolean endingMakesRoom;
    /** Taken-over messages are looked for at most this often (the lease they must have been idle for, a third). */
    private final Duration reclaimEvery;
    /** When each type's stalled messages are next looked for, on this replica's clock. */
    private final ConcurrentHashMap<String, Long> nextReclaim = new ConcurrentHashMap<>();
    /** Shifts where each request starts among its types, so that one type's backlog does not starve another's. */
    private final AtomicLong rotation = new AtomicLong();
    private final Executor blocking = Infrastructure.getDefaultWorkerPool();
    private ScheduledExecutorService resubscriber;
    private volatile boolean stopping;

    RemoteClaims(TaskQueue queue, AttemptTransitions transitions, TaskQueries queries, RemoteTypes remote,
            TypeLimits limits, Event<TasksBecameDue> due, RedisDataSource redis, LockSettings settings,
            TaskfenceConfig config) {
        this.queue = queue;
        this.transitions = transitions;
        this.queries = queries;
        this.remote = remote;
        this.due = due;
        this.claimable = new SignalChannel(redis, TaskQueue.claimableChannel(settings.keyPrefix()));
        this.lease = config.worker().lease();
        this.consumer = settings.replicaId() + "/remote/" + UUID.randomUUID().toString().substring(0, 8);
        this.endingMakesRoom = remote.names().stream().anyMatch(type -> limits.of(type).boundsRunning());
        this.reclaimEvery = Duration.ofMillis(Math.max(1, lease.toMillis() / 3));
    }

    /** After the Redis extension's own start-up (see {@code Workers.start}). */
    void start(@Observes @Priority(Interceptor.Priority.LIBRARY_AFTER) StartupEvent started) {
        // Also with no remote type configured: an admin may declare one at any time.
        resubscriber = new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().name("remote-claims").daemon().factory());
        claimable.listen(waits::pushed, waits::wakeAll, resubscriber);
    }

    /** The claimer a worker's claims carry: its key's name (or {@code anyone}) and the name it gave itself. */
    public static String claimer(String keyName, String workerName) {
        return CLAIMER_PREFIX + (keyName == null ? "anyone" : keyName) + ":" + workerName;
    }

    /** Whether the claim was made through the key named {@code keyName} (null: authentication is off). */
    public static boolean madeBy(ClaimId claim, String keyName) {
        return claim.worker().startsWith(CLAIMER_PREFIX + (keyName == null ? "anyone" : keyName) + ":");
    }

    /**
     * Up to {@code max} tasks of {@code types}, claimed for {@code claimer}; waits up to {@code wait} for the first
     * when none is there. Completes empty when the wait ends without tasks, having claimed none. Cancelled (the client
     * went away), it claims nothing more, and hands back (PENDING, the attempt not counted) what it had just claimed.
     */
    public Uni<List<Claim>> claim(String claimer, List<String> types, int max, Duration wait) {
        Request request = new Request(claimer, List.copyOf(types), max, System.nanoTime() + wait.toNanos());
        CompletableFuture<List<Claim>> answer = new CompletableFuture<>();
        look(request, answer, true);
        return Uni.createFrom().completionStage(answer).onCancellation().invoke(() -> answer.cancel(false));
    }

    private void look(Request request, CompletableFuture<List<Claim>> answer, boolean first) {
        // Registered before the look: a push announced while it reads wakes it for another look.
        ClaimWaits.Waiter waiter = waits.register(Set.copyOf(request.types()));
        try {
            blocking.execute(() -> lookNow(request, answer, waiter, first));
        } catch (RejectedExecutionException stopped) {
            waits.unregister(waiter);
            answer.complete(List.of());
        }
    }

    private void lookNow(Request request, CompletableFuture<List<Claim>> answer, ClaimWaits.Waiter waiter,
            boolean first) {
        if (answer.isDone()) { // the client went away
            waits.unregister(waiter);
            return;
        }
        if (stopping) {
            waits.unregister(waiter);
            answer.complete(List.of());
            return;
        }
        List<Claim> taken;
        try {
            taken = take(request);
        } catch (RuntimeException e) {
            if (first) { // the worker learns at once that Redis or PostgreSQL fails (503), and backs off
                waits.unregister(waiter);
                answer.completeExceptionally(e);
                return;
            }
            // A look again failed (the servers, or a flood of woken waiters): wait on, as if it had found nothing.
            LOG.debugf("a waiting claim's look failed: %s", e.getMessage());
            taken = List.of();
        }
        long left = request.deadlineNanos() - System.nanoTime();
        if (!taken.isEmpty() || left <= 0 || stopping) {
            waits.unregister(waiter);
            if (!answer.complete(taken)) {
                handBack(taken);
            }
            return;
        }
        waiter.woken().completeOnTimeout(null, Math.min(left, LOOK_AGAIN.toNanos()), TimeUnit.NANOSECONDS)
                .thenRun(() -> {
                    waits.unregister(waiter);
                    look(request, answer, false);
                });
    }

    /** One look: messages of the request's types (taken over ones first), their tasks claimed, the messages done. */
    private List<Claim> take(Request request) {
        List<String> types = rotated(request.types());
        Map<String, List<Message>> read = new LinkedHashMap<>();
        List<UUID> ids = new ArrayList<>();
        for (String type : types) {
            int room = request.max() - ids.size();
            if (room <= 0) {
                break;
            }
            boolean reclaim = reclaimDue(type);
            // Messages another replica read and never claimed (it died in between) first, then new ones.
            List<Message> messages = new ArrayList<>(reclaim ? queue.reclaimRemote(type, consumer, lease, room) : List.of());
            int reclaimed = messages.stream().mapToInt(message -> message.taskIds().size()).sum();
            if (reclaimed < room) {
                messages.addAll(queue.readRemote(type, consumer, room - reclaimed));
            }
            if (!messages.isEmpty()) {
                read.put(type, messages);
                messages.forEach(message -> ids.addAll(message.taskIds()));
            }
        }
        if (ids.isEmpty()) {
            return List.of();
        }
        // Should the claim fail, the messages stay pending and are taken over once idle for a lease.
        List<Claim> claimed = transitions.claimForRemote(ids, request.claimer(), lease);
        try {
            read.forEach(queue::doneRemote);
            due.fire(new TasksBecameDue()); // the streams have room again
        } catch (RuntimeException e) {
            // The claims committed: the worker gets them all the same (the table is the truth); the messages stay
            // pending until a take-over finds their tasks claimed and acknowledges them.
            LOG.warnf("acknowledging the messages of %d claimed tasks failed: %s", claimed.size(), e.getMessage());
        }
        return claimed;
    }

    /** Whether this look should take over the type's stalled messages: once a third of a lease per type and replica. */
    private boolean reclaimDue(String type) {
        long now = System.nanoTime();
        Long at = nextReclaim.get(type);
        if (at != null && now - at < 0) {
            return false;
        }
        return at == null ? nextReclaim.putIfAbsent(type, now + reclaimEvery.toNanos()) == null
                : nextReclaim.replace(type, at, now + reclaimEvery.toNanos());
    }

    private List<String> rotated(List<String> types) {
        int shift = (int) Math.floorMod(rotation.getAndIncrement(), (long) types.size());
        List<String> order = new ArrayList<>(types.subList(shift, types.size()));
        order.addAll(types.subList(0, shift));
        return order;
    }

    /** Claims made for a client that went away: PENDING again and due now, the attempt not counted. */
    private void handBack(List<Claim> claims) {
        for (Claim claim : claims) {
            try {
                if (transitions.later(claim, Duration.ZERO).isEmpty()) {
                    LOG.infof("task %s: its claim for a worker that went away ended first (timed out, or cancelled)",
                            claim.taskId());
                }
            } catch (RuntimeException e) {
                LOG.warnf("task %s was claimed for a worker that went away, and handing it back failed (%s); it "
                        + "runs again once its lease has run out", claim.taskId(), e.getMessage());
            }
        }
    }

    /**
     * Extends the claim's lease by {@code taskfence.worker.lease}, not past its time-out.
     *
     * @return the lease's new end
     * @throws ClaimSupersededException if the claim no longer holds its task
     */
    public Instant heartbeat(ClaimId claim) {
        return transitions.extend(claim.claim(), lease, Duration.ZERO).orElseThrow(() -> superseded(claim));
    }

    /**
     * PROCESSING → SUCCEEDED with {@code result} (may be null).
     *
     * @throws ClaimSupersededException if the claim no longer holds its task: nothing was written
     */
    public void complete(ClaimId claim, JsonNode result) {
        if (transitions.complete(List.of(new Completion(claim.claim(), result))).isEmpty()) {
            throw superseded(claim);
        }
        ended();
    }

    /**
     * PROCESSING → FAILED (due again after {@code retryAfter}, or after the backoff when null) or DEAD (not
     * {@code retryable}, the last attempt, or past the deadline).
     *
     * @return the status the task went to
     * @throws ClaimSupersededException if the claim no longer holds its task: nothing was written
     */
    public TaskStatus fail(ClaimId claim, String error, boolean retryable, Duration retryAfter, Duration backoffBase,
            Duration backoffCap) {
        Optional<TaskStatus> to = retryable && retryAfter != null
                ? transitions.failRetryingAfter(claim.claim(), error, retryAfter)
                : transitions.fail(claim.claim(), error, !retryable, backoffBase, backoffCap);
        TaskStatus status = to.orElseThrow(() -> superseded(claim));
        ended();
        return status;
    }

    /**
     * Hands the claim's task back: PENDING and due now, the attempt not counted (a worker shutting down before it
     * could finish). DEAD instead if its deadline has passed.
     *
     * @return the status the task went to
     * @throws ClaimSupersededException if the claim no longer holds its task: nothing was written
     */
    public TaskStatus release(ClaimId claim) {
        TaskStatus status = transitions.later(claim.claim(), Duration.ZERO).orElseThrow(() -> superseded(claim));
        ended();
        return status;
    }

    private void ended() {
        if (endingMakesRoom) {
            due.fire(new TasksBecameDue());
        }
    }

    /** Why a claim no longer holds its task, as the task's row tells now. */
    ClaimSupersededException superseded(ClaimId claim) {
        Optional<Task> task = queries.find(claim.taskId());
        if (task.isEmpty()) {
            return new ClaimSupersededException("task " + claim.taskId() + " no longer exists");
        }
        Task now = task.get();
        String reason = switch (now.status()) {
            case CANCELLED -> "the task was cancelled";
            case PROCESSING -> (now.attempt() != claim.attempt() ? "attempt " + now.attempt() + " holds the task now: "
                    + "this claim's lease ran out" : "another claim holds the task") + (now.timeout() == null ? ""
                    : ", or this claim's time-out (" + now.timeout() + ") passed"); // the row cannot tell which
            default -> "the task is " + now.status() + " now: this claim ended (it was completed or failed already, "
                    + "or its lease or time-out ran out)";
        };
        return new ClaimSupersededException("claim of task " + claim.taskId() + " attempt " + claim.attempt()
                + " no longer holds: " + reason);
    }

    void stop(@Observes ShutdownEvent stopped) {
        stopping = true;
        waits.wakeAll();
        claimable.close();
        if (resubscriber != null) {
            resubscriber.shutdownNow();
        }
        for (String type : remote.names()) {
            try {
                queue.leaveRemote(type, consumer);
            } catch (RuntimeException e) {
                LOG.debugf("leaving the consumer group of %s failed: %s", type, e.getMessage());
            }
        }
    }
}
