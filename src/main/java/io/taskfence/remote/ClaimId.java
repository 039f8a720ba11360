package io.taskfence.remote;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import java.util.UUID;

import io.taskfence.task.transition.Claim;

/**
 * What names a remote worker's claim in the worker API: the task, the attempt and the claim's worker id, written as
 * one URL-safe string, {@code <task id>.<attempt>.<worker id, base64url>}. It is what every later write of the claim
 * compares ({@link io.taskfence.task.transition.AttemptTransitions}); the random part of the worker id makes it
 * unguessable.
 */
public record ClaimId(UUID taskId, int attempt, String worker) {

    /** The form {@link #toString} writes: the task id as UUID writes it, the attempt, the worker id in base64url. */
    public static final String PATTERN = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.[0-9]{1,9}"
            + "\\.[A-Za-z0-9_-]+";

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    public static ClaimId of(Claim claim) {
        return new ClaimId(claim.taskId(), claim.attempt(), claim.claimId());
    }

    /** The claim this id names, for the transitions' conditions: its type and payload are not known here. */
    Claim claim() {
        return new Claim(taskId, null, null, attempt, worker, null, 0, null);
    }

    /** The id as the API writes it. */
    @Override
    public String toString() {
        return taskId + "." + attempt + "." + ENCODER.encodeToString(worker.getBytes(StandardCharsets.UTF_8));
    }

    /** The id a client sent; empty if it is not one this service writes. */
    public static Optional<ClaimId> parse(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length != 3 || parts[2].isEmpty() || parts[1].length() > 9) {
            return Optional.empty();
        }
        try {
            return Optional.of(new ClaimId(UUID.fromString(parts[0]), Integer.parseInt(parts[1]),
                    new String(DECODER.decode(parts[2]), StandardCharsets.UTF_8)));
        } catch (IllegalArgumentException notOurs) {
            return Optional.empty();
        }
    }
}
