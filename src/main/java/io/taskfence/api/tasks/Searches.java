package io.taskfence.api.tasks;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.resteasy.reactive.RestResponse;

import io.taskfence.TaskfenceConfig;
import io.taskfence.api.SearchedFromHeader;
import io.taskfence.api.auth.HeldPerKey;
import io.taskfence.task.query.TaskFilter;

/**
 * The bounds of searches and counts (DESIGN.md, "REST API", "Bulkheads"): each takes one of its key's places
 * ({@code taskfence.api.searches-per-key}), and a text or error search without {@code createdAfter} looks back
 * {@code taskfence.api.search-window} only, which its answer's {@link SearchedFromHeader} says.
 */
@ApplicationScoped
class Searches {

    private final HeldPerKey held;
    private final Duration window;
    private final Clock clock;

    Searches(HeldPerKey held, TaskfenceConfig config) {
        this.held = held;
        this.window = config.api().searchWindow();
        this.clock = Clock.systemUTC();
    }

    /** {@code read} of {@code filter}, in the search window if it searches without a start, in one of {@code key}'s places. */
    <T> RestResponse<T> run(String key, TaskFilter filter, Function<TaskFilter, T> read) {
        return run(key, filter, null, read);
    }

    /**
     * As {@link #run(String, TaskFilter, Function)}; a search without a start of its own looks back from
     * {@code windowFrom} when it is given (a later page of a search: its first page's window), else from now.
     */
    <T> RestResponse<T> run(String key, TaskFilter filter, Instant windowFrom, Function<TaskFilter, T> read) {
        TaskFilter bounded = filter.searches() && filter.createdAfter() == null
                ? filter.createdFrom(windowFrom != null ? windowFrom : clock.instant().minus(window)) : filter;
        T answer;
        try (HeldPerKey.Hold place = held.search(key)) {
            answer = read.apply(bounded);
        }
        RestResponse.ResponseBuilder<T> response = RestResponse.ResponseBuilder.ok(answer);
        if (bounded != filter) {
            response.header(SearchedFromHeader.NAME, bounded.createdAfter().toString());
        }
        return response.build();
    }
}
