package io.taskfence.api.tasks;

import java.util.EnumSet;
import java.util.Set;

import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.QueryParam;

import org.eclipse.microprofile.openapi.annotations.enums.Explode;
import org.eclipse.microprofile.openapi.annotations.enums.ParameterStyle;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;

import io.taskfence.api.PageLimit;
import io.taskfence.api.problem.Problems;
import io.taskfence.task.TaskField;

/**
 * The query parameters of a page of tasks besides its filters ({@link FilterParams}; DESIGN.md, "REST API", "Paging"):
 * how many, after which, with which large fields. Parsed here rather than by JAX-RS, which answers a bad one with a
 * bare 404; the document says what each takes.
 */
public class PageParams {

    @QueryParam("limit")
    @DefaultValue("50")
    @Parameter(description = "at most this many tasks on the page", schema = @Schema(type = SchemaType.INTEGER,
            minimum = "1", maximum = "" + PageLimit.MAX, defaultValue = "50"))
    String limit;

    @QueryParam("after")
    @Parameter(description = "the next of an earlier page, exactly as given: the page that follows it (a cursor the "
            + "service did not write is 400)", schema = @Schema(type = SchemaType.STRING, pattern = "[A-Za-z0-9_-]+"))
    String after;

    @QueryParam("fields")
    @Parameter(description = "payload, result, progress, comma-separated: each task with them (left out otherwise; "
            + "progressAt is always there)",
            style = ParameterStyle.FORM, explode = Explode.FALSE,
            schema = @Schema(type = SchemaType.ARRAY, implementation = TaskField.class, uniqueItems = true,
                    maxItems = 3))
    String fields;

    int limit() {
        return PageLimit.parse(limit);
    }

    String after() {
        return after;
    }

    /** A comma-separated list of {@code payload}, {@code result}, {@code progress}, each once; empty asks for none. */
    Set<TaskField> fields() {
        Set<TaskField> asked = EnumSet.noneOf(TaskField.class);
        if (fields == null) {
            return asked;
        }
        for (String name : fields.split(",", -1)) {
            TaskField field = switch (name) {
                case "payload" -> TaskField.PAYLOAD;
                case "result" -> TaskField.RESULT;
                case "progress" -> TaskField.PROGRESS;
                default -> null;
            };
            if (field == null || !asked.add(field)) {
                throw Problems.invalid("query", "fields", "must name payload, result or progress, comma-separated, "
                        + "each once, not '" + fields + "'");
            }
        }
        return asked;
    }
}
