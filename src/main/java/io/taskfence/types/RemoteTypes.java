package io.taskfence.types;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.runtime.Startup;
import io.taskfence.TaskfenceConfig;
import io.taskfence.handlers.TaskHandlers;

/**
 * The task types run by remote workers ({@code taskfence.types.<type>.remote=true}; DESIGN.md, "Remote workers"):
 * dispatch puts their tasks on a stream of their own, which only the worker API reads. Checked at start-up: a remote
 * type's name must be one a task type may have, and no handler may run it here as well.
 */
@ApplicationScoped
@Startup
public class RemoteTypes {

    private final Set<String> names;

    RemoteTypes(TaskfenceConfig config, TaskHandlers handlers) {
        this.names = read(config.types(), handlers.types());
    }

    /**
     * The types marked remote, by name.
     *
     * @throws IllegalStateException naming the first remote type whose name is not a type name or that has a handler
     */
    static Set<String> read(Map<String, TaskfenceConfig.Type> settings, Set<String> handled) {
        Set<String> remote = new TreeSet<>();
        settings.forEach((type, setting) -> {
            if (!setting.remote()) {
                return;
            }
            if (!TaskHandlers.TYPE.matcher(type).matches()) {
                throw new IllegalStateException("taskfence.types." + type + ".remote: '" + type
                        + "' is no task type name; a name matches " + TaskHandlers.TYPE.pattern());
            }
            if (handled.contains(type)) {
                throw new IllegalStateException("taskfence.types." + type + ".remote: a handler of this service runs '"
                        + type + "' tasks; a type is run by its handler or by remote workers, not both");
            }
            remote.add(type);
        });
        return Collections.unmodifiableSet(remote);
    }

    public boolean contains(String type) {
        return names.contains(type);
    }

    /** The remote types, by name. */
    public Set<String> names() {
        return names;
    }
}
