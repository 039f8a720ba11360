package io.taskfence.types;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.task.Sql;
import io.taskfence.task.TaskTransitions;
import io.taskfence.task.submit.NewTask;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/**
 * {@code rate-per-key} (DESIGN.md, "Configuration", "Type limits"): {@code noop} at most 5 of a group started a second,
 * {@code sleep} 2 a minute and 1 at a time. The test dispatches ({@link TaskTransitions#enqueueDue}) and claims itself,
 * and ages the recorded starts to end a window, so every step is one it chose.
 */
@QuarkusTest
@TestServers
@TestProfile(GroupRatesTest.RatedPerKey.class)
class GroupRatesTest {

    public static final class RatedPerKey implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("taskfence.types.noop.rate-per-key", "5/s",
                    "taskfence.types.sleep.rate-per-key", "2/m",
                    "taskfence.types.sleep.max-per-key", "1");
        }
    }

    @TestHTTPResource(value = "/", management = true)
    URI management;
    @Inject
    TaskTransitions transitions;
    @Inject
    DataSource db;
    @Inject
    GroupFixture fixture;

    @BeforeEach
    @AfterEach
    void onlyThisTestsTasksAreUnfinished() {
        fixture.onlyOwnTasksUnfinished();
    }

    @Test
    void eachGroupStartsAtMostItsRateInAWindowSideBySideAndTasksWithoutAKeyAreNotHeld() {
        Map<String, List<UUID>> groups = new HashMap<>();
        for (String key : List.of("customer-1", "customer-2", "customer-3")) {
            groups.put(key, submit("noop", key, 8));
        }
        List<UUID> free = submit("noop", null, 7);

        List<UUID> first = fixture.enqueueDue(100);
        assertEquals(3 * 5 + 7, first.size(), "five of each group and every task without a key");
        for (List<UUID> group : groups.values()) {
            assertEquals(group.subList(0, 5), group.stream().filter(first::contains).toList(), "a group's first five");
        }
        assertTrue(first.containsAll(free));
        assertEquals(List.of(), fixture.enqueueDue(100), "queued tasks count against the rate: they may start at any moment");

        first.forEach(fixture::claim);
        // The window is a second: the starts are kept in it (dated a minute on) while the test looks, whatever its pace.
        Sql.run(db, "update group_starts set at = now() + interval '1 minute'");
        assertEquals(List.of(), fixture.enqueueDue(100), "started in this window");
        assertEquals(3L, fixture.state("noop").keysRateLimited());
        assertEquals("5/s", fixture.state("noop").ratePerKey());
        given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).get("/api/v1/types").then().statusCode(200)
                .body("find { it.type == 'noop' }.ratePerKey", is("5/s"))
                .body("find { it.type == 'noop' }.keysRateLimited", is(3));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/types").then().statusCode(200)
                .body("find { it.type == 'noop' }.ratePerKey", is("5/s"))
                .body("find { it.type == 'noop' }.keysRateLimited", nullValue());
        // The window passes: each group's next three (all it has left) go, side by side.
        Sql.run(db, "update group_starts set at = now() - interval '2 seconds'");
        List<UUID> second = fixture.enqueueDue(100);
        assertEquals(9, second.size());
        for (List<UUID> group : groups.values()) {
            assertEquals(group.subList(5, 8), group.stream().filter(second::contains).toList());
        }
        assertEquals(0L, fixture.state("noop").keysRateLimited(), "no group has a due task left");
    }

    @Test
    void aGroupWithRoomForOneMoreAtATimeIsStillHeldToItsRate() {
        List<UUID> group = submit("sleep", "customer-1", 3);
        for (int i = 0; i < 2; i++) {
            assertEquals(List.of(group.get(i)), fixture.enqueueDue(100), "max-per-key 1: one at a time");
            assertTrue(transitions.complete(fixture.claim(group.get(i)), null));
        }
        assertEquals(List.of(), fixture.enqueueDue(100), "two started this minute: the third waits though none runs");
        assertEquals(1L, fixture.state("sleep").keysRateLimited());
        assertEquals(0L, fixture.state("sleep").keysAtLimit());
        // The gauge is read at most every 5 s: an earlier scrape may answer for a while (the window is a minute).
        await("the gauge of groups held back by their rate").atMost(Duration.ofSeconds(15)).until(() -> given()
                .get(management.resolve("/q/metrics")).then().statusCode(200).extract().asString().lines()
                .anyMatch(line -> line.startsWith("taskfence_type_keys_rate_limited{") && line.contains("type=\"sleep\"")
                        && line.endsWith(" 1.0")));
        Sql.run(db, "update group_starts set at = at - interval '61 seconds'");
        assertEquals(List.of(group.get(2)), fixture.enqueueDue(100));
    }

    /** {@code count} tasks of {@code type} in the group {@code key} (null: none), in submission order. */
    private List<UUID> submit(String type, String key, int count) {
        List<NewTask> tasks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            tasks.add(new NewTask(type, JsonNodeFactory.instance.objectNode().put("n", i), 5, 0, null, null, null)
                    .ownedBy("owner-1").inGroup(key));
        }
        return fixture.submit(tasks);
    }
}
