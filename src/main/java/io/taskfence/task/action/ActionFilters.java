package io.taskfence.task.action;

import java.time.Instant;
import java.util.EnumSet;
import java.util.Set;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.taskfence.task.TaskStatus;
import io.taskfence.task.query.TaskFilter;

/** A bulk action's filter as {@code task_actions.filter} stores it, and back. */
final class ActionFilters {

    private ActionFilters() {
    }

    /** The filter as stored: its fields that are set, statuses sorted, so that equal filters are equal JSON. */
    static ObjectNode canonical(TaskFilter filter) {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        if (filter.owner() != null) {
            json.put("owner", filter.owner());
        }
        if (filter.statuses() != null) {
            ArrayNode statuses = json.putArray("statuses");
            filter.statuses().stream().map(TaskStatus::name).sorted().forEach(statuses::add);
        }
        if (filter.type() != null) {
            json.put("type", filter.type());
        }
        if (filter.batch() != null) {
            json.put("batch", filter.batch().toString());
        }
        if (filter.createdAfter() != null) {
            json.put("createdAfter", filter.createdAfter().toString());
        }
        if (filter.createdBefore() != null) {
            json.put("createdBefore", filter.createdBefore().toString());
        }
        if (filter.error() != null) {
            json.put("error", filter.error());
        }
        if (filter.text() != null) {
            json.put("text", filter.text());
        }
        return json;
    }

    static TaskFilter filter(ObjectNode json) {
        Set<TaskStatus> statuses = EnumSet.noneOf(TaskStatus.class);
        json.path("statuses").forEach(status -> statuses.add(TaskStatus.valueOf(status.asText())));
        return new TaskFilter(text(json, "owner"), statuses, text(json, "type"),
                json.has("batch") ? UUID.fromString(json.get("batch").asText()) : null,
                json.has("createdAfter") ? Instant.parse(json.get("createdAfter").asText()) : null,
                json.has("createdBefore") ? Instant.parse(json.get("createdBefore").asText()) : null,
                text(json, "error"), text(json, "text"));
    }

    private static String text(JsonNode json, String field) {
        return json.has(field) ? json.get(field).asText() : null;
    }
}
