package io.taskfence.testing;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;

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
}
