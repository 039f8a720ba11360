package io.taskfence.task.submit;

import java.util.OptionalInt;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.TaskfenceConfig;

/**
 * How many unfinished tasks (PENDING, ENQUEUED, PROCESSING, FAILED) each API key may have at once: its own
 * {@code taskfence.auth.keys.<name>.max-unfinished}, else {@code taskfence.auth.max-unfinished}, else no
 * limit (DESIGN.md, "Configuration", "Quotas"). {@link Submissions#submitAll} holds submissions to it.
 */
@ApplicationScoped
public class Quotas {

    private final TaskfenceConfig.Auth auth;

    Quotas(TaskfenceConfig config) {
        this.auth = config.auth();
    }

    public OptionalInt limitFor(String owner) {
        TaskfenceConfig.Auth.Key key = auth.keys().get(owner);
        if (key != null && key.maxUnfinished().isPresent()) {
            return key.maxUnfinished();
        }
        return auth.maxUnfinished();
    }
}
