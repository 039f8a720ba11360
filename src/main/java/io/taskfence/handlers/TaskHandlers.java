package io.taskfence.handlers;

import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;

/** The registered handlers by task type; a type without one cannot be submitted. */
@ApplicationScoped
public class TaskHandlers {

    /** What a task type may look like (DESIGN.md, "REST API"). */
    public static final Pattern TYPE = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");

    private final Map<String, TaskHandler> byType = new TreeMap<>();

    TaskHandlers(Instance<TaskHandler> handlers) {
        for (TaskHandler handler : handlers) {
            if (!TYPE.matcher(handler.type()).matches()) {
                throw new IllegalStateException("handler " + handler.getClass().getName() + " has type '"
                        + handler.type() + "', which does not match " + TYPE.pattern());
            }
            TaskHandler clash = byType.put(handler.type(), handler);
            if (clash != null) {
                throw new IllegalStateException("two handlers for type '" + handler.type() + "': "
                        + clash.getClass().getName() + " and " + handler.getClass().getName());
            }
        }
    }

    public Optional<TaskHandler> forType(String type) {
        return Optional.ofNullable(byType.get(type));
    }

    public Set<String> types() {
        return Collections.unmodifiableSet(byType.keySet());
    }
}
