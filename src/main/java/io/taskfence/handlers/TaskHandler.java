package io.taskfence.handlers;

import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Runs tasks of one type. Implement it as a CDI bean (e.g. {@code @ApplicationScoped}) and tasks of
 * its {@link #type()} can be submitted. A handler may run on any replica, more than once for one task
 * (a worker that stalls past its lease is replaced), so it should be idempotent. It must stop soon when
 * its thread is interrupted, which happens when its claim was lost: the task was cancelled while it ran,
 * or its lease ran out. Blocking calls that throw {@link InterruptedException} do that on their own; a
 * handler that waits otherwise (on a socket, a future without a time-out, a loop) must check
 * {@link Thread#isInterrupted()} or abort its call. Whatever it returns then is not recorded.
 */
public interface TaskHandler {

    /** The task type it runs, matching {@code [a-z0-9][a-z0-9._-]{0,63}}. */
    String type();

    /**
     * What a task handed to a handler carries.
     *
     * @param owner the API key that submitted the task; null for none (authentication off, a schedule's task)
     * @param reporter where {@link #progress} hands a report: the replica's writer of progress
     */
    record Work(UUID taskId, ObjectNode payload, int attempt, String owner, Consumer<ObjectNode> reporter) {

        /** Work whose progress reports go nowhere (a handler run outside a worker, e.g. in a test). */
        public Work(UUID taskId, ObjectNode payload, int attempt, String owner) {
            this(taskId, payload, attempt, owner, progress -> { });
        }

        /**
         * Reports how far the attempt has come, e.g. {@code {"done": 40, "total": 100, "message": "..."}}: the task's
         * {@code progress} shows the latest, written within a second (at most once a second; never blocks). Cleared
         * when another attempt starts.
         *
         * @throws IllegalArgumentException if its JSON is over 4 KiB
         */
        public void progress(ObjectNode progress) {
            reporter.accept(progress);
        }
    }

    /**
     * What is wrong with a payload in a way no attempt could mend, one sentence per problem naming the field;
     * empty when the payload may be submitted. The API answers a non-empty list with 422 and stores nothing.
     * It must be quick and call nothing outside the process. A handler checks again when it runs: the task may
     * have been submitted through another replica, whose version or configuration differs.
     */
    default List<String> payloadProblems(ObjectNode payload) {
        return List.of();
    }

    /**
     * {@link #payloadProblems(ObjectNode)} for a task of {@code owner} (an API key's name; null for none), for a
     * handler whose rules differ by key. The API calls this one.
     */
    default List<String> payloadProblems(ObjectNode payload, String owner) {
        return payloadProblems(payload);
    }

    /**
     * Runs one attempt. An exception counts as a failure that is retried, like {@link TaskOutcome#failure}.
     */
    TaskOutcome handle(Work work) throws Exception;
}
