package io.taskfence.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.Supplier;

/**
 * The requests of the chaos run's follow-ups client (DESIGN.md, "Dependencies", "Batches", "Callbacks"): each one
 * {@code POST /api/v1/tasks/batch} whose tasks all carry an idempotency key, so that a request whose answer a fault
 * swallowed can be sent again whole without making a task, an edge or a batch twice. Every structure is made by one
 * request, so each dependency is new with its dependents and its first end is the one that resolves their edges.
 *
 * <ul>
 * <li>a chain A → B → C;
 * <li>a diamond A → B, A → C, B + C → D;
 * <li>a fan-in: 20 tasks waiting on one;
 * <li>a batch of 10 tasks with a then task.
 * </ul>
 * A chain's, diamond's or fan-in's head fails until DEAD one time in three (its dependents are then cancelled, or
 * run for {@code onDependencyFailure: "run"}, which one structure in three asks for); one task in four, the then
 * tasks included, names the run's {@link CallbackReceiver}.
 */
final class FollowUpRequests {

    static final String PATH = "/api/v1/tasks/batch";
    private static final int FAN_IN = 20;
    private static final int BATCH_ITEMS = 10;

    private final Supplier<String> keys;
    private final String callbackUrl;

    FollowUpRequests(Supplier<String> keys, String callbackUrl) {
        this.keys = keys;
        this.callbackUrl = callbackUrl;
    }

    /** The next request: a chain 35 %, a diamond 25 %, a fan-in 15 %, a batch with a then task 25 %. */
    Submissions.Unanswered next(Random random) {
        int kind = random.nextInt(100);
        String body;
        if (kind < 35) {
            body = waiting(random, List.of(List.of(), List.of(0), List.of(1)));
        } else if (kind < 60) {
            body = waiting(random, List.of(List.of(), List.of(0), List.of(0), List.of(1, 2)));
        } else if (kind < 75) {
            List<List<Integer>> fanIn = new ArrayList<>(List.of(List.of()));
            for (int i = 0; i < FAN_IN; i++) {
                fanIn.add(List.of(0));
            }
            body = waiting(random, fanIn);
        } else {
            body = batchWithThen(random);
        }
        return new Submissions.Unanswered(PATH, body, Optional.empty());
    }

    /** Tasks waiting on other items of the request: {@code waitsFor.get(i)} the places task i depends on. */
    private String waiting(Random random, List<List<Integer>> waitsFor) {
        boolean headDies = random.nextInt(3) == 0;
        String policy = random.nextInt(3) == 0 ? ",\"onDependencyFailure\":\"run\"" : "";
        StringBuilder body = new StringBuilder("{\"tasks\":[");
        for (int i = 0; i < waitsFor.size(); i++) {
            List<Integer> places = waitsFor.get(i);
            String fields = i == 0 && headDies ? dies() : runs(random);
            if (!places.isEmpty()) {
                fields += ",\"dependsOnItems\":" + places + policy;
            }
            body.append(i == 0 ? "" : ",").append(item(random, fields));
        }
        return body.append("]}").toString();
    }

    private String batchWithThen(Random random) {
        StringBuilder body = new StringBuilder("{\"tasks\":[");
        for (int i = 0; i < BATCH_ITEMS; i++) {
            body.append(i == 0 ? "" : ",").append(item(random, random.nextInt(10) == 0 ? dies() : runs(random)));
        }
        return body.append("],\"then\":").append(item(random, "\"type\":\"noop\",\"payload\":{\"then\":true}"))
                .append("}").toString();
    }

    /** A task with its idempotency key and, one time in four, a callback. */
    private String item(Random random, String fields) {
        String callback = random.nextInt(4) == 0 ? ",\"callback\":{\"url\":\"" + callbackUrl + "\"}" : "";
        return "{" + fields + callback + ",\"idempotencyKey\":\"" + keys.get() + "\"}";
    }

    /** A task that fails every attempt: DEAD after two. */
    private static String dies() {
        return "\"type\":\"flaky\",\"payload\":{\"failTimes\":5},\"maxAttempts\":2";
    }

    /** A task that succeeds: a noop or a short sleep. */
    private static String runs(Random random) {
        return random.nextBoolean() ? "\"type\":\"noop\",\"payload\":{\"n\":" + random.nextInt(1_000) + "}"
                : "\"type\":\"sleep\",\"payload\":{\"ms\":" + (20 + random.nextInt(180)) + "}";
    }
}
