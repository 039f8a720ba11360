package io.taskfence.types;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * A registered task type as {@code GET /api/v1/types} and the stats show it (DESIGN.md, "REST API").
 *
 * @param remote whether remote workers run it (DESIGN.md, "Remote workers")
 * @param maxConcurrency its {@code max-concurrency}, null when it has none
 * @param rate its {@code rate} ({@code 10/s}, {@code 600/m}), null when it has none
 * @param inFlight its tasks ENQUEUED or PROCESSING now: what {@code max-concurrency} bounds; null for a submit key, as
 *        are the next two ({@link #withoutClusterCounts})
 * @param maxPerKey its {@code max-per-key}, null when it has none
 * @param rateUsed its tasks started (claimed) in the rate's window ending now plus those ENQUEUED, which may start
 *        at any moment: what {@code rate} bounds; null when it has no rate
 * @param keysAtLimit its concurrency groups with {@code max-per-key} tasks ENQUEUED, PROCESSING or waiting to run
 *        again now, whose next tasks wait; null when it has no {@code max-per-key}
 * @param ratePerKey its {@code rate-per-key}, null when it has none
 * @param keysRateLimited its concurrency groups with due tasks that {@code rate-per-key} holds back now (their starts
 *        in the window and ENQUEUED tasks reach it); null when it has no {@code rate-per-key}
 * @param timeout its {@code timeout}, the longest one attempt of its tasks stored from now on may take ({@code 30s},
 *        {@code 500ms}); null when it has none
 */
@Schema(requiredProperties = { "type", "paused", "remote", "maxConcurrency", "rate", "maxPerKey", "inFlight", "rateUsed",
        "keysAtLimit", "ratePerKey", "keysRateLimited", "timeout" })
public record TypeState(String type, boolean paused, boolean remote, @Schema(nullable = true) Integer maxConcurrency,
        @Schema(nullable = true) String rate, @Schema(nullable = true) Integer maxPerKey,
        @Schema(nullable = true) Long inFlight, @Schema(nullable = true) Long rateUsed,
        @Schema(nullable = true) Long keysAtLimit, @Schema(nullable = true) String ratePerKey,
        @Schema(nullable = true) Long keysRateLimited, @Schema(nullable = true) String timeout) {

    /** The state as a submit key sees it: the limits, but not how much of them every tenant together uses. */
    public TypeState withoutClusterCounts() {
        return new TypeState(type, paused, remote, maxConcurrency, rate, maxPerKey, null, null, null, ratePerKey, null,
                timeout);
    }
}
