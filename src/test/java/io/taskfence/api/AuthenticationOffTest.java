package io.taskfence.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.testing.TestServers;

/**
 * With authentication off (docs/security.md: callers have no key name), the requests that the per-key caps count
 * (long-polls, searches, counts) are still answered: every caller without a key shares one count of each.
 */
@QuarkusTest
@TestServers
@TestProfile(AuthenticationOffTest.Off.class)
class AuthenticationOffTest {

    public static final class Off implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("taskfence.auth.enabled", "false");
        }
    }

    @Test
    void keysAreNotManagedWhileAuthenticationIsOff() {
        // A key made now would start to work, made by no one, once authentication is on.
        given().contentType("application/json").body("{\"name\":\"latecomer\",\"role\":\"admin\"}")
                .post("/api/v1/keys").then().statusCode(409).body("detail", containsString("authentication is off"));
        given().get("/api/v1/keys").then().statusCode(409);
    }

    @Test
    void aWaitASearchAndACountAreAnsweredWithoutAKey() {
        String id = given().contentType("application/json").body("{\"type\":\"noop\",\"payload\":{\"n\":1}}")
                .post("/api/v1/tasks").then().statusCode(201).extract().path("id");

        given().get("/api/v1/tasks/" + id + "?wait=200ms").then().statusCode(200).body("id", equalTo(id));
        given().queryParam("text", "\"n\"").get("/api/v1/tasks").then().statusCode(200).body("items.id[0]", equalTo(id));
        given().queryParam("type", "noop").get("/api/v1/tasks/count").then().statusCode(200)
                .body("count", equalTo(1), "createdBefore", notNullValue());
    }
}
