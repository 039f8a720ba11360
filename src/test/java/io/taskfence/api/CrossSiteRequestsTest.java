package io.taskfence.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

import java.net.URL;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.specification.RequestSpecification;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/**
 * A page on another site can make a browser POST to the API (a form needs no preflight); with authentication off
 * nothing else would stop it from cancelling tasks. Such a request is refused and changes nothing; the service's
 * own pages, and programs (which send no Origin), are not affected.
 */
@QuarkusTest
@TestServers
class CrossSiteRequestsTest {

    @TestHTTPResource("/")
    URL base;

    @Test
    void aChangeSentFromAnotherSiteIsRefusedAndChangesNothing() {
        String id = submit();
        given().header("Origin", "https://evil.example").contentType("application/x-www-form-urlencoded")
                .auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/" + id + "/cancel").then().statusCode(403)
                .contentType("application/problem+json")
                .body("detail", startsWith("a request that changes something may not come from another site: its Origin "
                        + "'https://evil.example' is not this service's"));
        given().header("Origin", "null").auth().oauth2(ApiKeysForTests.SUBMIT_KEY)
                .post("/api/v1/tasks/" + id + "/cancel").then().statusCode(403);
        given().header("Sec-Fetch-Site", "cross-site").auth().oauth2(ApiKeysForTests.SUBMIT_KEY)
                .post("/api/v1/tasks/" + id + "/cancel").then().statusCode(403);
        as().get("/api/v1/tasks/" + id).then().statusCode(200).body("status", is("PENDING"));
    }

    @Test
    void theServicesOwnPagesProgramsAndReadsAreNotAffected() {
        String own = base.getProtocol() + "://" + base.getAuthority();
        given().header("Origin", own).header("Sec-Fetch-Site", "same-origin").auth().oauth2(ApiKeysForTests.SUBMIT_KEY)
                .post("/api/v1/tasks/" + submit() + "/cancel").then().statusCode(200).body("status", is("CANCELLED"));
        as().post("/api/v1/tasks/" + submit() + "/cancel").then().statusCode(200);
        given().header("Origin", "https://evil.example").auth().oauth2(ApiKeysForTests.SUBMIT_KEY)
                .get("/api/v1/tasks/" + submit()).then().statusCode(200);
    }

    private static String submit() {
        return as().contentType("application/json").body("{\"type\":\"noop\",\"payload\":{}}").post("/api/v1/tasks")
                .then().statusCode(201).extract().path("id");
    }

    private static RequestSpecification as() {
        return given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY);
    }
}
