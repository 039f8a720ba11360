package io.taskfence.api;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/** Keyset pages, newest first: walking them while others submit neither repeats nor skips a task. */
@QuarkusTest
@TestServers
class PaginationTest {

    private static final String TYPE = "noop";

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
        } while (after != null);
        walking.set(false);
        int insertedMeanwhile = inserter.get();

        Set<String> unique = new HashSet<>(seen);
        assertEquals(seen.size(), unique.size(), "a task was listed twice");
        assertTrue(unique.containsAll(existing), "a task that existed before the walk was skipped");
        System.out.printf("walked %d pages while %d tasks were submitted%n", pages, insertedMeanwhile);
        assertTrue(insertedMeanwhile > 0, "nothing was submitted during the walk");
    }

    private static String submit(int n) {
        return given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"" + TYPE + "\",\"payload\":{\"n\":" + n + "}}").post("/api/v1/tasks").then()
                .statusCode(201).extract().path("id");
    }
}
