package io.taskfence.task;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;

import io.taskfence.store.FenceToken;
import io.taskfence.task.followup.FollowUps;
import io.taskfence.task.submit.outcome.IdempotencyKeyReusedException;
import io.taskfence.task.submit.NewTask;
import io.taskfence.task.submit.outcome.OverQuota;
import io.taskfence.task.submit.outcome.OverQuotaException;
import io.taskfence.task.submit.outcome.ReusedKey;
import io.taskfence.task.submit.Retries;
import io.taskfence.task.submit.outcome.Submission;
import io.taskfence.task.submit.Submissions;
import io.taskfence.task.submit.outcome.Submitted;
import io.taskfence.task.submit.outcome.UnmetDependency;
import io.taskfence.task.submit.outcome.TypeTakenBack;
import io.taskfence.task.submit.outcome.TypeTakenBackException;
import io.taskfence.task.submit.outcome.UnmetDependencyException;
import io.taskfence.task.transition.AttemptTransitions;
import io.taskfence.task.transition.Claim;
import io.taskfence.task.transition.Completion;
import io.taskfence.task.transition.DispatchBatch;
import io.taskfence.task.transition.LeaseRecovery;
import io.taskfence.task.transition.OperatorControls;

/**
 * Test support: the whole state machine behind one bean, as tests drive it, with the one-task shortcuts that no
 * main code needs. Each method calls the class of the actor that owns the transition.
 */
@ApplicationScoped
public class TaskTransitions {

    private final Submissions submissions;
    private final DispatchBatch dispatch;
    private final AttemptTransitions attempts;
    private final OperatorControls controls;
    private final LeaseRecovery recovery;
    private final Retries retries;
    private final FollowUps followUps;
    /** The follow-ups' fence: a lock of this bean's own, so that it never fences out the service's job. */
    private final FenceToken followUpsFence = TaskFixtures.fence("follow-ups-test-" + UUID.randomUUID(), 1);

    TaskTransitions(Submissions submissions, DispatchBatch dispatch, AttemptTransitions attempts,
            OperatorControls controls, LeaseRecovery recovery, Retries retries, FollowUps followUps) {
        this.followUps = followUps;
        this.submissions = submissions;
        this.dispatch = dispatch;
        this.attempts = attempts;
        this.controls = controls;
        this.recovery = recovery;
        this.retries = retries;
    }

    /**
     * Does every follow-up the ends so far left (their dependents' release or cancel, in turn for cascades, and their
     * callback tasks), as the follow-ups job would, in the calling thread.
     *
     * @return the transactions it took
     */
    public List<FollowUps.Run> followUps() {
        List<FollowUps.Run> runs = new ArrayList<>();
        FollowUps.Run run;
        do {
            run = followUps.work(followUpsFence);
            runs.add(run);
        } while (run.more());
        return runs;
    }

    /** The worker's side, for tests that build worker parts by hand. */
    public AttemptTransitions attempts() {
        return attempts;
    }

    /** One task, as a single REST submission: the outcome, or its refusal as the exception the resource maps. */
    public Submission submit(NewTask task) {
        return switch (submitAll(List.of(task)).getFirst()) {
            case Submission submission -> submission;
            case ReusedKey reused -> throw new IdempotencyKeyReusedException(reused);
            case OverQuota refused -> throw new OverQuotaException(refused);
            case UnmetDependency unmet -> throw new UnmetDependencyException(unmet);
            case TypeTakenBack gone -> throw new TypeTakenBackException(gone);
        };
    }

    public List<Submitted> submitAll(List<NewTask> tasks) {
        return submissions.submitAll(tasks);
    }

    public List<Submitted> submitEach(List<NewTask> tasks) {
        return submissions.submitEach(tasks);
    }

    public Optional<Task> cancel(UUID id) {
        return controls.cancel(id, TaskScope.ALL);
    }

    public Optional<Task> cancel(UUID id, TaskScope scope) {
        return controls.cancel(id, scope);
    }

    public Optional<Task> retry(UUID id) {
        return retries.retry(id, TaskScope.ALL);
    }

    public Optional<Task> retry(UUID id, TaskScope scope) {
        return retries.retry(id, scope);
    }

    public List<UUID> enqueueDue(FenceToken fence, int limit) {
        return dispatch.enqueueDue(fence, limit, Map.of()).enqueued();
    }

    public boolean anyDue() {
        return dispatch.anyDue();
    }

    public Optional<Claim> claim(UUID id, String claimer, Duration lease) {
        return attempts.claim(List.of(id), claimer, lease).stream().findFirst();
    }

    public List<Claim> claim(Collection<UUID> ids, String claimer, Duration lease) {
        return attempts.claim(ids, claimer, lease);
    }

    public boolean heartbeat(Claim claim, Duration lease) {
        return attempts.heartbeat(claim, lease, Duration.ZERO);
    }

    public boolean heartbeat(Claim claim, Duration lease, Duration answerWithin) {
        return attempts.heartbeat(claim, lease, answerWithin);
    }

    public boolean complete(Claim claim, JsonNode result) {
        return !attempts.complete(List.of(new Completion(claim, result))).isEmpty();
    }

    public Set<String> complete(List<Completion> done) {
        return attempts.complete(done);
    }

    public Optional<TaskStatus> fail(Claim claim, String error, boolean permanent, Duration backoffBase,
            Duration backoffCap) {
        return attempts.fail(claim, error, permanent, backoffBase, backoffCap);
    }

    public Optional<TaskStatus> later(Claim claim, Duration delay) {
        return attempts.later(claim, delay);
    }

    public int requeueStaleEnqueued(FenceToken fence, Duration timeout, Collection<UUID> stillQueued) {
        return recovery.requeueStaleEnqueued(fence, timeout, stillQueued);
    }

    public int failExpiredLeases(FenceToken fence, Duration backoffBase, Duration backoffCap) {
        return recovery.failExpiredLeases(fence, backoffBase, backoffCap);
    }
}
