package io.taskfence.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.UUID;

import org.jboss.logging.Logger;

import io.quarkus.redis.datasource.stream.StreamMessage;
import io.taskfence.queue.TaskQueue.Message;

/**
 * The format of a stream entry (DESIGN.md, "Queue (Redis)", queue/push.lua): one task id (the field {@code task}),
 * or several separated by spaces (the field {@code tasks}).
 */
final class QueueEntries {

    private static final Logger LOG = Logger.getLogger(QueueEntries.class);
    /** An entry's field naming one task. */
    private static final String TASK_FIELD = "task";
    /** An entry's field naming several tasks, their ids separated by spaces. */
    private static final String TASKS_FIELD = "tasks";

    private QueueEntries() {
    }

    /** The values of the entries that carry {@code taskIds}, {@code perEntry} ids to an entry. */
    static List<String> values(List<UUID> taskIds, int perEntry) {
        List<String> values = new ArrayList<>();
        for (int from = 0; from < taskIds.size(); from += perEntry) {
            StringJoiner ids = new StringJoiner(" ");
            taskIds.subList(from, Math.min(taskIds.size(), from + perEntry)).forEach(id -> ids.add(id.toString()));
            values.add(ids.toString());
        }
        return values;
    }

    static List<Message> messages(List<StreamMessage<String, String, String>> entries) {
        List<Message> messages = new ArrayList<>(entries.size());
        for (StreamMessage<String, String, String> entry : entries) {
            List<UUID> ids = new ArrayList<>();
            entry.payload().forEach((field, value) -> ids.addAll(taskIds(entry.id(), field, value)));
            messages.add(new Message(entry.id(), ids));
        }
        return messages;
    }

    /** The ids a field names: none if it is not a task field, or holds something other than task ids. */
    static List<UUID> taskIds(String entryId, String field, String value) {
        if (!TASK_FIELD.equals(field) && !TASKS_FIELD.equals(field)) {
            return List.of();
        }
        List<UUID> ids = new ArrayList<>();
        for (String id : value.split(" ")) {
            try {
                ids.add(UUID.fromString(id));
            } catch (IllegalArgumentException e) {
                LOG.warnf("queue entry %s names %s, which is no task id; skipping it", entryId, abbreviated(id));
            }
        }
        return ids;
    }

    private static String abbreviated(String value) {
        return value.length() <= 40 ? "\"" + value + "\"" : "\"" + value.substring(0, 40) + "…\"";
    }
}
