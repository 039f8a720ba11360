package io.taskfence.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.taskfence.task.TaskFixtures;
import io.taskfence.task.TaskTransitions;
import io.taskfence.task.transition.Claim;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/**
 * Keyset pages, newest first: walking them while others submit neither repeats nor skips a task. A page holds at
 * most 100 tasks, and payloads and results only when asked for.
 */
@QuarkusTest
@TestServers
class PaginationTest {

    private static final String TYPE = "noop";

    @Inject
    TaskFixtures fixtures;

    @Inject
    TaskTransitions transitions;

    @Test
    void pagesWalkedDuringConcurrentSubmissionsHaveNoGapAndNoRepeat() throws Exception {
        List<String> existing = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            existing.add(submit(i));
        }
        AtomicBoolean walking = new AtomicBoolean(true);
        CompletableFuture<Integer> inserter = CompletableFuture.supplyAsync(() -> {
            int inserted = 0;
            while (walking.get() && inserted < 500) {
                submit(1000 + inserted++);
            }
            return inserted;
        });

        List<String> seen = new ArrayList<>();
        Instant previous = Instant.MAX;
        String after = null;
        int pages = 0;
        do {
            var request = given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).queryParam("limit", 10).queryParam("type", TYPE);
            if (after != null) {
                request.queryParam("after", after);
            }
            JsonPath page = request.get("/api/v1/tasks").then().statusCode(200).extract().jsonPath();
            for (Map<String, Object> item : page.<Map<String, Object>>getList("items")) {
                Instant created = Instant.parse((String) item.get("createdAt"));
                assertTrue(!created.isAfter(previous), "not newest first at " + item.get("id"));
                previous = created;
                seen.add((String) item.get("id"));
            }
            after = page.getString("next");
            pages++;
            // Past the oldest task of this test's: what is further back (other tests' tasks) adds nothing here.
        } while (after != null && !new HashSet<>(seen).containsAll(existing));
        walking.set(false);
        int insertedMeanwhile = inserter.get();

        Set<String> unique = new HashSet<>(seen);
        assertEquals(seen.size(), unique.size(), "a task was listed twice");
        assertTrue(unique.containsAll(existing), "a task that existed before the walk was skipped");
        System.out.printf("walked %d pages while %d tasks were submitted%n", pages, insertedMeanwhile);
        assertTrue(insertedMeanwhile > 0, "nothing was submitted during the walk");
    }

    @Test
    void aListingShowsPayloadsAndResultsOnlyWhenAskedAndAtMostAHundredTasksAPage() {
        Claim claim = fixtures.claimed();
        String id = claim.taskId().toString();
        assertTrue(transitions.complete(claim, JsonNodeFactory.instance.objectNode().put("n", 7)));
        String pending = fixtures.pending().id().toString();
        Object payload = listed(pending, "payload").get("payload");

        Map<String, Object> bare = listed(id, null);
        assertFalse(bare.containsKey("payload") || bare.containsKey("result"), "unasked large fields: " + bare);
        assertEquals("SUCCEEDED", bare.get("status"));
        assertFalse(listed(id, "payload").containsKey("result"));
        assertTrue(listed(id, "payload").get("payload") instanceof Map<?, ?> fixture && fixture.containsKey("fixture"));
        Map<String, Object> full = listed(id, "result,payload");
        assertEquals(Map.of("n", 7), full.get("result"));
        assertTrue(full.get("payload") instanceof Map<?, ?>);
        assertTrue(payload instanceof Map<?, ?> fixture && fixture.containsKey("fixture"), "payload: " + payload);
        Map<String, Object> unfinished = listed(pending, "result");
        assertTrue(unfinished.containsKey("result") && unfinished.get("result") == null,
                "a task without a result shows result null when asked: " + unfinished);
        given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).get("/api/v1/tasks/{id}", pending).then().statusCode(200)
                .body("$", hasKey("payload")).body("$", hasKey("result")).body("result", nullValue());
        assertFalse(listed(pending, "").containsKey("payload"), "an empty fields asks for none");

        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).queryParam("limit", 100).get("/api/v1/tasks").then()
                .statusCode(200).body("items.size()", lessThanOrEqualTo(100));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).queryParam("limit", 101).get("/api/v1/tasks").then()
                .statusCode(400).contentType("application/problem+json").body("violations[0].field", is("limit"));
    }

    /** The task as the admin's newest-first listing shows it, with {@code fields} if not null. */
    private static Map<String, Object> listed(String id, String fields) {
        var request = given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).queryParam("limit", 100).queryParam("type", TYPE);
        if (fields != null) {
            request.queryParam("fields", fields);
        }
        List<Map<String, Object>> items = request.get("/api/v1/tasks").then().statusCode(200).extract().jsonPath()
                .getList("items");
        return items.stream().filter(item -> id.equals(item.get("id"))).findFirst()
                .orElseThrow(() -> new AssertionError(id + " is not among the newest 100 tasks"));
    }

    private static String submit(int n) {
        return given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"" + TYPE + "\",\"payload\":{\"n\":" + n + "}}").post("/api/v1/tasks").then()
                .statusCode(201).extract().path("id");
    }
}
