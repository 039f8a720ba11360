package io.taskfence.api;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.taskfence.testing.TestServers;

/**
 * The OpenAPI document served at {@code /q/openapi} is one clients can be generated from (issue 28, item 6): every
 * operation has a unique {@code operationId}, and its error answers, any call's and its own, are described as
 * problems; it names a server and a licence. CI also lints the document the build writes with Redocly's rules.
 */
@QuarkusTest
@TestServers
class OpenApiDocumentTest {

    private static final Set<String> ANY_CALL = Set.of("401", "403", "429", "503");

    @TestHTTPResource(value = "/", management = true)
    URI management;

    @Test
    void everyOperationHasAnIdAndItsErrorAnswersAsProblems() {
        JsonPath document = given().queryParam("format", "json").get(management.resolve("/q/openapi")).then()
                .statusCode(200).extract().jsonPath();
        Map<String, Map<String, Map<String, Object>>> paths = document.getMap("paths");
        Set<String> ids = new HashSet<>();
        int operations = 0;
        for (var path : paths.entrySet()) {
            if (path.getKey().startsWith("/test-only/")) {
                continue; // the tests' own resources (FailingResource, ...), not the API's
            }
            for (var method : path.getValue().entrySet()) {
                String at = method.getKey() + " " + path.getKey();
                @SuppressWarnings("unchecked")
                Map<String, Map<String, Object>> responses = (Map<String, Map<String, Object>>) (Map<?, ?>) method
                        .getValue().get("responses");
                String id = (String) method.getValue().get("operationId");
                assertTrue(id != null && ids.add(id), at + ": operationId " + id + " missing or not unique");
                assertTrue(responses.keySet().containsAll(ANY_CALL), at + " answers " + responses.keySet());
                for (var answer : responses.entrySet()) {
                    if (answer.getKey().startsWith("4") || answer.getKey().startsWith("5")) {
                        assertEquals("#/components/schemas/Problem", document.getString("paths.'" + path.getKey()
                                + "'." + method.getKey() + ".responses.'" + answer.getKey()
                                + "'.content.'application/problem+json'.schema.$ref"), at + " " + answer.getKey());
                    }
                }
                operations++;
            }
        }
        assertEquals(30, operations, "the API's operations: " + ids);
        // An operation's own answers, as the REST API's table lists them.
        String retry = "paths.'/api/v1/tasks/{id}/retry'.post.responses.";
        assertEquals("the task is not DEAD or CANCELLED", document.getString(retry + "'409'.description"));
        assertTrue(document.getString(retry + "'429'.description").contains("quota"), "retry's 429 names the quota");
        assertTrue(document.getMap("paths.'/api/v1/tasks'.post.responses").keySet().containsAll(
                Set.of("400", "413", "415", "422")), "a submission's answers to its body");
        assertFalse(document.getList("servers").isEmpty(), "no server");
        assertEquals("Apache-2.0", document.getString("info.license.name"));
    }
}
