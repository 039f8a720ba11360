package io.taskfence.testing;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.restassured.path.json.JsonPath;

/** Calls of the worker API ({@code /api/v1/claims}) that several tests make, as a remote worker would. */
public final class WorkerApiCalls {

    private WorkerApiCalls() {
    }

    /**
     * One claim of {@code type} with the worker key {@code key}, long-polling again until one comes or {@code within}
     * has passed (then the test fails); the claim's fields at the root.
     */
    public static JsonPath claimOne(String key, String type, Duration within) {
        JsonPath answer = null;
        long end = System.nanoTime() + within.toNanos();
        while ((answer == null || answer.getList("claims").isEmpty()) && System.nanoTime() < end) {
            answer = given().auth().oauth2(key).contentType("application/json")
                    .body("{\"types\":[\"" + type + "\"],\"wait\":\"20s\"}").post("/api/v1/claims").then()
                    .statusCode(200).extract().jsonPath();
        }
        assertEquals(1, answer.getList("claims").size(), "one task of " + type + " claimed: " + answer.prettify());
        return answer.setRootPath("claims[0]");
    }

    /**
     * Heartbeats of the claims {@code claimIds} with the worker key {@code key}, every second from now until closed,
     * as a worker keeps the claims it works on: a test holding a claim across many requests would otherwise see it
     * taken back on a busy machine (the running profiles' leases are 3 s). What each heartbeat answers is not
     * looked at: one after the claim's end is refused, as it should be. The list is read each second: a thread-safe
     * one the test adds to has its new claims renewed from then on.
     */
    public static Heartbeats heartbeating(String key, List<String> claimIds) {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        timer.scheduleWithFixedDelay(() -> claimIds.forEach(claim -> {
            try {
                given().auth().oauth2(key).post("/api/v1/claims/" + claim + "/heartbeat");
            } catch (RuntimeException e) {
                // one that did not get through; the next second's may (a throw would end the schedule)
            }
        }), 1, 1, TimeUnit.SECONDS);
        return new Heartbeats(timer);
    }

    /** The heartbeats {@link #heartbeating} sends, until closed. */
    public static final class Heartbeats implements AutoCloseable {

        private final ScheduledExecutorService timer;

        private Heartbeats(ScheduledExecutorService timer) {
            this.timer = timer;
        }

        /** Stops them; returns once none is being sent. */
        @Override
        public void close() {
            timer.shutdown();
            try {
                if (!timer.awaitTermination(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("a heartbeat did not end within 30 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}
