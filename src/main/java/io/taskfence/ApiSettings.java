package io.taskfence;

import java.time.Duration;

import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Pattern;

import org.hibernate.validator.constraints.time.DurationMin;

import io.smallrye.config.WithDefault;

/**
 * The bounds on what API reads may hold ({@code taskfence.api.*}; DESIGN.md, "REST API", "Bulkheads"): a group of
 * {@link TaskfenceConfig}, in a file of its own. The caps are per key and per replica.
 */
public interface ApiSettings {

    /**
     * The longest one statement of an API read may run (PostgreSQL's {@code statement_timeout} of the reads pool's
     * sessions); written in whole seconds or milliseconds ({@code 5s}, {@code 500ms}). It goes into the sessions'
     * options as written, so another form ({@code 5}: 5 ms to PostgreSQL; {@code PT5S}: refused by it) stops the start.
     */
    @WithDefault("5s")
    @Pattern(regexp = "[1-9][0-9]*(ms|s)", message = "must be whole seconds or milliseconds, such as 5s or 500ms")
    String readTimeout();

    /** How far back a text or error search without {@code createdAfter} looks. */
    @WithDefault("24h")
    @DurationMin(nanos = 1)
    Duration searchWindow();

    /** The most a count counts: past it, the answer says "at least" this many. */
    @WithDefault("10000")
    @Min(1)
    int countCap();

    /** Searches (a listing with {@code text} or {@code error}) and counts one key may have running at once. */
    @WithDefault("2")
    @Min(1)
    int searchesPerKey();

    /** Long-polls of tasks ({@code GET /tasks/{id}?wait=}) one key may have waiting at once. */
    @WithDefault("10")
    @Min(1)
    int longPollsPerKey();

    /**
     * Claims with {@code wait} one key may have waiting at once: apart from the long-polls of tasks, and larger, since a
     * fleet of workers often shares one worker key, each with a claim waiting.
     */
    @WithDefault("64")
    @Min(1)
    int claimWaitsPerKey();
}
