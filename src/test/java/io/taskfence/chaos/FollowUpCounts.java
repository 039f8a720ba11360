package io.taskfence.chaos;

import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * What the {@link FollowUpChecker} found of the follow-ups a chaos run's tasks asked for (DESIGN.md,
 * "Dependencies", "Batches", "Callbacks", "Follow-ups"): each one done exactly once. The run fails on any
 * count named "must be 0".
 *
 * @param dependents tasks with edges in {@code task_dependencies}
 * @param dependentsReleased of those, released (WAITING → PENDING)
 * @param dependentsCancelledWaiting of those, cancelled while WAITING (by a failed dependency or a client)
 * @param neverReleased dependents WAITING at the end, or with an edge unresolved although its dependency ended
 * @param releasedTwice dependents with two WAITING → PENDING events, or released and cancelled both
 * @param ranDespiteFailedDependency dependents with {@code on_dependency_failure = 'cancel'} released although a
 *     dependency's first end (the one that resolved the edge) was DEAD or CANCELLED
 * @param batches rows in {@code batches}
 * @param thenMissing batches without their then task's row, and then tasks a client was shown but which no task
 *     holds the key of
 * @param thenMadeTwice then keys held by more than one task, and then tasks of more than one batch
 * @param thenNeverReleased then tasks WAITING at the end, and closed batches whose items all ended but which did
 *     not complete
 * @param thenReleasedTwice then tasks with two WAITING → PENDING events, or released and cancelled both
 * @param callbackEnds ends (→ SUCCEEDED, DEAD, CANCELLED) of tasks with a callback, from their history
 * @param callbackTasks tasks of type {@code callback}
 * @param callbacksLost ends no callback task tells (by the view's id, status and updatedAt)
 * @param callbacksTwice callback tasks beyond one an end, or telling no end at all
 * @param callbackStates the callback tasks' final statuses
 * @param callbacksNotReceived callback tasks SUCCEEDED whose end the receiver never got
 * @param receivedPosts POSTs the receiver answered, repeats included
 * @param receivedEnds distinct ends the receiver got
 * @param followUpsLeft rows left in {@code task_follow_ups} once everything drained
 * @param examples a few of the offending tasks and batches, with what is wrong
 */
record FollowUpCounts(long dependents, long dependentsReleased, long dependentsCancelledWaiting, long neverReleased,
        long releasedTwice, long ranDespiteFailedDependency, long batches, long thenMissing, long thenMadeTwice,
        long thenNeverReleased, long thenReleasedTwice, long callbackEnds, long callbackTasks, long callbacksLost,
        long callbacksTwice, Map<String, Long> callbackStates, long callbacksNotReceived, long receivedPosts,
        long receivedEnds, long followUpsLeft, List<String> examples) {

    boolean passed() {
        return neverReleased == 0 && releasedTwice == 0 && ranDespiteFailedDependency == 0 && thenMissing == 0
                && thenMadeTwice == 0 && thenNeverReleased == 0 && thenReleasedTwice == 0 && callbacksLost == 0
                && callbacksTwice == 0 && callbacksNotReceived == 0 && followUpsLeft == 0;
    }

    /** The summary's rows, each a measure and its value. */
    void rows(BiConsumer<String, Object> row) {
        row.accept("dependents: released / cancelled while WAITING / in all", dependentsReleased + " / "
                + dependentsCancelledWaiting + " / " + dependents);
        row.accept("**dependents never released / released twice (or released and cancelled)** (must be 0)",
                neverReleased + " / " + releasedTwice);
        row.accept("**dependents run although a dependency failed (policy cancel)** (must be 0)",
                ranDespiteFailedDependency);
        row.accept("batches with a then task", batches);
        row.accept("**then tasks missing / made twice** (must be 0)", thenMissing + " / " + thenMadeTwice);
        row.accept("**then tasks never released / released twice** (must be 0)", thenNeverReleased + " / "
                + thenReleasedTwice);
        row.accept("ends of tasks with a callback / callback tasks " + callbackStates, callbackEnds + " / "
                + callbackTasks);
        row.accept("**callbacks lost / made twice** (must be 0)", callbacksLost + " / " + callbacksTwice);
        row.accept("callbacks received: POSTs / distinct ends; SUCCEEDED but never received (must be 0)",
                receivedPosts + " / " + receivedEnds + "; " + callbacksNotReceived);
        row.accept("**follow-ups left undone** (must be 0)", followUpsLeft);
        if (!examples.isEmpty()) {
            row.accept("follow-up problems, e.g.", examples);
        }
    }
}
