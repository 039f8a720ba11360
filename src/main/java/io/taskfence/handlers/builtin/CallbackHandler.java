package io.taskfence.handlers.builtin;

import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.taskfence.handlers.TaskHandler;
import io.taskfence.handlers.TaskOutcome;

/**
 * {@code callback}: tells {@code payload.url} that a task ended (DESIGN.md, "Callbacks") by POSTing
 * {@code payload.task}, the task's view as it ended, exactly as the {@code http} handler POSTs a body: the same
 * allow-list (the service's, and the owner's own), address checks, time-out and answers (2xx succeeds; 5xx, 429
 * and connection failures are retried; other answers are permanent). Taskfence makes these tasks when a task that
 * names a {@code callback} ends. Each POST is signed afresh for the task's owner ({@link CallbackSignatures}); a task
 * without an owner (authentication off) is sent unsigned.
 */
@ApplicationScoped
public class CallbackHandler implements TaskHandler {

    private final HttpHandler http;
    private final CallbackSignatures signatures;

    CallbackHandler(HttpHandler http, CallbackSignatures signatures) {
        this.http = http;
        this.signatures = signatures;
    }

    @Override
    public String type() {
        return "callback";
    }

    @Override
    public List<String> payloadProblems(ObjectNode payload) {
        return payloadProblems(payload, null);
    }

    @Override
    public List<String> payloadProblems(ObjectNode payload, String owner) {
        List<String> problems = new ArrayList<>(http.payloadProblems(call(payload), owner));
        if (!payload.path("task").isObject()) {
            problems.add("payload.task must be an object: the view of the task that ended");
        }
        return problems;
    }

    @Override
    public TaskOutcome handle(Work work) throws InterruptedException {
        if (!work.payload().path("task").isObject()) {
            return TaskOutcome.permanentFailure("payload.task must be an object: the view of the task that ended");
        }
        String owner = work.owner();
        if (owner != null && !signatures.signs(owner)) {
            return TaskOutcome.permanentFailure("the callback cannot be signed: API key '" + owner
                    + "', whose task it is, is no longer configured");
        }
        String id = work.taskId().toString();
        return http.handle(new Work(work.taskId(), call(work.payload()), work.attempt(), owner),
                body -> signatures.headers(owner, id, body));
    }

    /** The {@code http} task's payload this callback is: its URL, and the task's view as the body. */
    private static ObjectNode call(ObjectNode payload) {
        ObjectNode call = JsonNodeFactory.instance.objectNode();
        call.set("url", payload.get("url"));
        call.set("body", payload.get("task"));
        return call;
    }
}
