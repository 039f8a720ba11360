package io.taskfence.api.tasks;

import static io.taskfence.api.tasks.BulkAnswer.Item.refused;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import jakarta.enterprise.event.Event;
import jakarta.inject.Singleton;
import jakarta.ws.rs.core.Response.Status;
import jakarta.ws.rs.core.UriInfo;

import io.taskfence.api.auth.RequestRates;
import io.taskfence.api.problem.Problem;
import io.taskfence.api.problem.ProblemException;
import io.taskfence.api.problem.Problems;
import io.taskfence.task.TaskScope;
import io.taskfence.task.TasksBecameDue;
import io.taskfence.task.batch.Batches;
import io.taskfence.task.submit.BatchPlan;
import io.taskfence.task.submit.NewTask;
import io.taskfence.task.submit.outcome.OverQuota;
import io.taskfence.task.submit.outcome.OverQuotaException;
import io.taskfence.task.submit.outcome.ReusedKey;
import io.taskfence.task.submit.outcome.Submission;
import io.taskfence.task.submit.Submissions;
import io.taskfence.task.submit.outcome.Submitted;
import io.taskfence.task.submit.outcome.SubmittedBatch;
import io.taskfence.task.submit.outcome.TypeTakenBack;
import io.taskfence.task.submit.outcome.UnmetDependency;

/**
 * A bulk submission, {@code POST /api/v1/tasks/batch} (DESIGN.md, "REST API", "Batch"): up to 1,000 tasks in one
 * request and one insert. Each task is checked as a single submission is ({@link NewTasks}); a refused one gets its
 * problem and stores nothing, and does not stop the others. With {@code then} or {@code batchId} the tasks stored
 * make or join a batch (DESIGN.md, "Batches").
 */
@Singleton
final class BulkSubmissions {

    private final Submissions submissions;
    private final NewTasks newTasks;
    private final RequestRates rates;
    private final Event<TasksBecameDue> due;
    private final Batches batchViews;

    BulkSubmissions(Submissions submissions, NewTasks newTasks, RequestRates rates, Event<TasksBecameDue> due,
            Batches batchViews) {
        this.submissions = submissions;
        this.newTasks = newTasks;
        this.rates = rates;
        this.due = due;
        this.batchViews = batchViews;
    }

    /**
     * Every task's outcome in the request's order, for {@code owner} (the key's name, null without authentication);
     * an {@link OverQuotaException}, and nothing stored, when the tasks to store would take the key past its quota.
     */
    BulkAnswer submit(BulkRequest body, String owner, UriInfo uri) {
        List<BulkTask> tasks = body.tasks();
        BulkAnswer.Item[] items = new BulkAnswer.Item[tasks.size()];
        List<NewTask> accepted = new ArrayList<>(tasks.size());
        List<Integer> acceptedAt = new ArrayList<>(tasks.size());
        if (owner != null) {
            rates.takeForBatch(owner, tasks.size());
        }
        boolean intoBatch = body.then() != null || body.batchId() != null;
        for (int index = 0; index < tasks.size(); index++) {
            try {
                refuseMisusedDedupe(tasks, index, intoBatch);
                accepted.add(newTasks.newTask(index, tasks.get(index), owner));
                acceptedAt.add(index);
            } catch (ProblemException refused) {
                items[index] = refused(index, refused.problem(), uri);
            }
        }
        accepted = ItemDependencies.withItemDependencies(tasks, items, accepted, acceptedAt, uri);
        BatchPlan plan = batchPlan(body, owner);
        SubmittedBatch submitted = plan == null ? new SubmittedBatch(submissions.submitAll(accepted), null)
                : submissions.submitAll(accepted, plan);
        List<Submitted> outcomes = submitted.items();
        // One owner, one quota check: either every task was refused by it or none was.
        if (!outcomes.isEmpty() && outcomes.getFirst() instanceof OverQuota refused) {
            throw new OverQuotaException(refused);
        }
        boolean created = false;
        for (int i = 0; i < outcomes.size(); i++) {
            int index = acceptedAt.get(i);
            items[index] = switch (outcomes.get(i)) {
                case Submission submission -> new BulkAnswer.Item(index,
                        (submission.created() ? Status.CREATED : Status.OK).getStatusCode(), submission.task(), null);
                case ReusedKey reused -> refused(index, Problem.unprocessable(reused.detail("idempotencyKey"))
                        .withField("tasks[" + index + "].idempotencyKey"), uri);
                case OverQuota refused -> throw new IllegalStateException("a batch's quota refuses all its tasks or none");
                case UnmetDependency unmet -> refused(index, Problem.unprocessable("tasks[" + index + "]: " + unmet.detail())
                        .withField("tasks[" + index + "].dependsOn"), uri);
                case TypeTakenBack gone -> refused(index, Problem.unprocessable("tasks[" + index + "]: " + gone.detail())
                        .withField("tasks[" + index + "].type"), uri);
            };
            created |= items[index].status() == Status.CREATED.getStatusCode()
                    || (items[index].task() != null && NewTasks.dueNow(items[index].task()));
        }
        if (created) {
            due.fire(new TasksBecameDue());
        }
        return BulkAnswer.of(List.of(items), submitted.batchId() == null ? null
                : batchViews.find(submitted.batchId(), TaskScope.ALL).orElse(null));
    }

    /**
     * Refuses a dedupe key where the task it answers could not stand in for the one sent: in a batch (the task its key
     * holds may be of another batch, or of none), or named by another task's {@code dependsOnItems} (the task it answers
     * may be another request's: name it by its id in dependsOn).
     */
    private static void refuseMisusedDedupe(List<BulkTask> tasks, int index, boolean intoBatch) {
        BulkTask task = tasks.get(index);
        if (task != null && task.dedupe() != null && intoBatch) {
            throw Problems.about("tasks[" + index + "].dedupe", Status.BAD_REQUEST, "a task of a batch may not have a "
                    + "dedupe key: the task its key holds may be of another batch, or of none");
        }
        for (int item : Optional.ofNullable(task == null ? null : task.dependsOnItems()).orElse(List.of())) {
            if (item >= 0 && item < tasks.size() && tasks.get(item) != null && tasks.get(item).dedupe() != null) {
                throw Problems.about("tasks[" + index + "].dependsOnItems", Status.BAD_REQUEST, "dependsOnItems names "
                        + "tasks[" + item + "], which has a dedupe key: the task it answers may be another request's; "
                        + "wait for that task by its id (dependsOn) instead");
            }
        }
    }

    /** The batch the request's tasks join, if it names one (DESIGN.md, "Batches"); its then task checked. */
    private BatchPlan batchPlan(BulkRequest body, String owner) {
        if (body.then() != null && body.batchId() != null) {
            throw Problems.about("batchId", Status.BAD_REQUEST, "a request makes a new batch (then) or adds to one "
                    + "(batchId), not both");
        }
        if (body.open() != null && body.then() == null && body.batchId() == null) {
            throw Problems.about("open", Status.BAD_REQUEST, "open keeps a batch open: it needs then or batchId");
        }
        boolean open = Boolean.TRUE.equals(body.open());
        if (body.then() != null) {
            return new BatchPlan.NewBatch(newTasks.thenTask(body.then(), owner), open);
        }
        return body.batchId() == null ? null : new BatchPlan.AddTo(body.batchId(), open);
    }
}
