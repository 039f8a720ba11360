package io.taskfence.types;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.enterprise.context.Dependent;

import io.taskfence.task.Sql;
import io.taskfence.task.TaskFixtures;
import io.taskfence.task.TaskTransitions;
import io.taskfence.task.submit.NewTask;
import io.taskfence.task.submit.outcome.Submission;
import io.taskfence.task.transition.Claim;

/**
 * The steps a test of concurrency groups takes itself, dispatch being off, so that every step is one it chose: a
 * clean slate, a dispatch ({@link TaskTransitions#enqueueDue}), a claim, a submission and a type's state. Dependent:
 * each test instance gets its own, and with it a lock of its own to dispatch under.
 */
@Dependent
final class GroupFixture {

    private static final Duration LEASE = Duration.ofMinutes(5);
    private static final String WORKER = "group-fixture";

    private final TaskTransitions transitions;
    private final TaskTypes types;
    private final DataSource db;
    private final String lock = "groups-" + UUID.randomUUID();

    GroupFixture(TaskTransitions transitions, TaskTypes types, DataSource db) {
        this.transitions = transitions;
        this.types = types;
        this.db = db;
    }

    /**
     * Other test classes share the tables: their unfinished tasks would take places in a batch or count in flight, a
     * type they paused would hold its tasks back, and the starts they recorded would count against a group's rate.
     */
    void onlyOwnTasksUnfinished() {
        Sql.run(db, "update tasks set status = 'CANCELLED' where status in ('PENDING', 'ENQUEUED', 'PROCESSING', 'FAILED')");
        Sql.run(db, "delete from paused_types");
        Sql.run(db, "delete from group_starts");
    }

    List<UUID> enqueueDue(int limit) {
        return transitions.enqueueDue(TaskFixtures.fence(lock, 1), limit);
    }

    Claim claim(UUID id) {
        return transitions.claim(id, WORKER, LEASE).orElseThrow();
    }

    List<Claim> claim(List<UUID> ids) {
        return transitions.claim(ids, WORKER, LEASE);
    }

    /** Submits {@code tasks} in one batch; their ids in that order. */
    List<UUID> submit(List<NewTask> tasks) {
        return transitions.submitAll(tasks).stream().map(submitted -> ((Submission) submitted).task().id()).toList();
    }

    TypeState state(String type) {
        return types.all().stream().filter(state -> state.type().equals(type)).findFirst().orElseThrow();
    }
}
