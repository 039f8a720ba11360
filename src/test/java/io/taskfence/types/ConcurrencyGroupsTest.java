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
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.TaskTransitions;
import io.taskfence.task.submit.NewTask;
import io.taskfence.task.transition.Claim;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/**
 * Concurrency groups (DESIGN.md, "Dispatch", "Concurrency groups"): {@code http} and {@code sleep} (also at most 2 in
 * flight) have {@code max-per-key} 1, {@code noop} 2 ({@link TypeLimitsTest.Limited}). The test calls {@link TaskTransitions#enqueueDue} itself (dispatch
 * is off) and claims, finishes and fails the tasks itself, so every step is one it chose.
 */
@QuarkusTest
@TestServers
@TestProfile(TypeLimitsTest.Limited.class)
class ConcurrencyGroupsTest {

    @TestHTTPResource(value = "/", management = true)
    URI management;
    @Inject
    TaskTransitions transitions;
    @Inject
    GroupFixture fixture;

    @BeforeEach
    @AfterEach
    void onlyThisTestsTasksAreUnfinished() {
        fixture.onlyOwnTasksUnfinished();
    }

    @Test
    void aGroupLimitedToOneRunsItsTasksOneAfterAnotherInSubmissionOrderRetriesIncluded() {
        // Submitted in this order in one batch; the last has the highest priority, which orders nothing in a group.
        List<UUID> a = submit("http", "owner-1", "a", 0, 0, 5);
        List<UUID> b = submit("http", "owner-1", "b", 0);
        List<UUID> free = submit("http", "owner-1", null, 0, 0);

        List<UUID> first = fixture.enqueueDue(100);
        assertEquals(sorted(List.of(a.get(0), b.get(0), free.get(0), free.get(1))), sorted(first),
                "the head of each group and every task without a key");
        assertEquals(List.of(), fixture.enqueueDue(100), "a group's second task while its first is queued");
        assertEquals(2L, fixture.state("http").keysAtLimit());
        assertEquals(1, fixture.state("http").maxPerKey());
        given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).get("/api/v1/types").then().statusCode(200)
                .body("find { it.type == 'http' }.maxPerKey", is(1))
                .body("find { it.type == 'http' }.keysAtLimit", is(2));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/types").then().statusCode(200)
                .body("find { it.type == 'http' }.maxPerKey", is(1))
                .body("find { it.type == 'http' }.keysAtLimit", nullValue());
        // The gauge is read at most every 5 s: an earlier scrape may answer for a while.
        await("the gauge of groups at their limit").atMost(Duration.ofSeconds(15)).until(() -> given()
                .get(management.resolve("/q/metrics")).then().statusCode(200).extract().asString().lines()
                .anyMatch(line -> line.startsWith("taskfence_type_keys_at_limit{") && line.contains("type=\"http\"")
                        && line.endsWith(" 2.0")));

        Claim a1 = fixture.claim(a.get(0));
        assertEquals(List.of(), fixture.enqueueDue(100), "while its first runs");
        assertTrue(transitions.complete(a1, null));
        assertEquals(List.of(a.get(1)), fixture.enqueueDue(100), "the next in submission order, not the higher priority");

        // A failed attempt keeps its place: the group's next task waits for the retry, which goes first.
        Claim a2 = fixture.claim(a.get(1));
        assertEquals(Optional.of(TaskStatus.FAILED), transitions.fail(a2, "boom", false, Duration.ZERO, Duration.ZERO));
        assertEquals(List.of(a.get(1)), fixture.enqueueDue(100), "the retry of the FAILED task, not the task after it");
        assertTrue(transitions.complete(fixture.claim(a.get(1)), null));
        assertEquals(List.of(a.get(2)), fixture.enqueueDue(100));

        // An ended task (DEAD) leaves the group.
        assertEquals(Optional.of(TaskStatus.DEAD), transitions.fail(fixture.claim(b.get(0)), "gone", true, Duration.ZERO,
                Duration.ZERO));
        assertEquals(1L, fixture.state("http").keysAtLimit(), "b left its limit, a is at it");
    }

    @Test
    void aTaskThatRanAndWaitsToRunAgainHoldsItsPlace() {
        List<UUID> a = submit("http", "owner-1", "a", 0, 0);
        List<UUID> b = submit("http", "owner-1", "b", 0, 0);
        assertEquals(sorted(List.of(a.get(0), b.get(0))), sorted(fixture.enqueueDue(100)));
        transitions.fail(fixture.claim(a.get(0)), "boom", false, Duration.ofHours(1), Duration.ofHours(1));
        assertEquals(Optional.of(TaskStatus.PENDING), transitions.later(fixture.claim(b.get(0)), Duration.ofHours(1)));
        assertEquals(List.of(), fixture.enqueueDue(100), "a group's next task went while its first waits an hour to run again");
        assertEquals(2L, fixture.state("http").keysAtLimit());
    }

    @Test
    void groupsAreScopedToTheirTypeAndOwner() {
        // The same key from two owners, and in another type, are three groups: no tenant can hold another's back.
        List<UUID> mine = submit("http", "owner-1", "customer-17", 0, 0);
        List<UUID> theirs = submit("http", "owner-2", "customer-17", 0, 0);
        List<UUID> noops = submit("noop", "owner-1", "customer-17", 0, 0, 0);
        List<UUID> batch = fixture.enqueueDue(100);
        assertEquals(sorted(List.of(mine.get(0), theirs.get(0), noops.get(0), noops.get(1))), sorted(batch),
                "one of each http group, two of the noop group (max-per-key 2)");
    }

    @Test
    void aGroupLimitedToTwoRunsTwoAndTheNextWhenOneEnds() {
        List<UUID> group = submit("noop", "owner-1", "k", 0, 0, 0, 0);
        assertEquals(sorted(group.subList(0, 2)), sorted(fixture.enqueueDue(100)));
        List<Claim> running = fixture.claim(group.subList(0, 2));
        assertEquals(List.of(), fixture.enqueueDue(100));
        assertTrue(transitions.complete(running.getFirst(), null));
        assertEquals(List.of(group.get(2)), fixture.enqueueDue(100));
    }

    @Test
    void aTaskAnOperatorRetriesWaitsForTheGroupsRunningTaskThenGoesInItsOrder() {
        List<UUID> a = submit("http", "owner-1", "a", 0, 0, 0);
        assertEquals(List.of(a.get(0)), fixture.enqueueDue(100));
        transitions.fail(fixture.claim(a.get(0)), "gone", true, Duration.ZERO, Duration.ZERO); // DEAD: it left the group
        assertEquals(List.of(a.get(1)), fixture.enqueueDue(100));
        Claim running = fixture.claim(a.get(1));
        assertTrue(transitions.retry(a.get(0)).isPresent());
        assertEquals(List.of(), fixture.enqueueDue(100), "the retried task went beside the group's running one");
        assertTrue(transitions.complete(running, null));
        assertEquals(List.of(a.get(0)), fixture.enqueueDue(100), "submitted before a[2], it goes before it");
    }

    @Test
    void whenRoomComesBackOneAtATimeEveryGroupGetsItsTurn() {
        // sleep: at most 2 in flight (max-concurrency) and 1 a group. A batch walks the groups on from the last one
        // served, so a group that finished is not served again before the others waiting behind it.
        List<UUID> a = submit("sleep", "owner-1", "a", 0, 0);
        List<UUID> b = submit("sleep", "owner-1", "b", 0, 0);
        List<UUID> c = submit("sleep", "owner-1", "c", 0, 0);
        assertEquals(sorted(List.of(a.get(0), b.get(0))), sorted(fixture.enqueueDue(100)));
        assertTrue(transitions.complete(fixture.claim(a.get(0)), null));
        assertEquals(List.of(c.get(0)), fixture.enqueueDue(100), "c's turn, not a's again");
        assertTrue(transitions.complete(fixture.claim(b.get(0)), null));
        assertEquals(List.of(a.get(1)), fixture.enqueueDue(100), "then round to a");
    }

    @Test
    void theApiTakesShowsAndChecksAConcurrencyKey() {
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"noop\",\"payload\":{},\"concurrencyKey\":\"customer-17\"}")
                .post("/api/v1/tasks").then().statusCode(201).body("concurrencyKey", is("customer-17"));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"noop\",\"payload\":{},\"concurrencyKey\":\"\"}")
                .post("/api/v1/tasks").then().statusCode(400).contentType("application/problem+json")
                .body("violations[0].field", is("concurrencyKey"))
                .body("violations[0].message", is("must be 1 to 200 visible ASCII characters"));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"tasks\":[{\"type\":\"noop\",\"payload\":{}},{\"type\":\"noop\",\"payload\":{},"
                        + "\"concurrencyKey\":\"two words\"}]}")
                .post("/api/v1/tasks/batch").then().statusCode(200)
                .body("items[1].status", is(400))
                .body("items[1].problem.violations[0].field", is("tasks[1].concurrencyKey"));
        // The same idempotency key in another group is another request.
        String idempotencyKey = "groups-" + UUID.randomUUID();
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .header("Idempotency-Key", idempotencyKey)
                .body("{\"type\":\"noop\",\"payload\":{},\"concurrencyKey\":\"g1\"}")
                .post("/api/v1/tasks").then().statusCode(201);
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .header("Idempotency-Key", idempotencyKey)
                .body("{\"type\":\"noop\",\"payload\":{},\"concurrencyKey\":\"g2\"}")
                .post("/api/v1/tasks").then().statusCode(422);
    }

    /** Tasks of {@code type} in the group {@code key} (null: none), one per priority given, in that order. */
    private List<UUID> submit(String type, String owner, String key, int... priorities) {
        List<NewTask> tasks = new ArrayList<>();
        for (int priority : priorities) {
            tasks.add(new NewTask(type, JsonNodeFactory.instance.objectNode(), 5, priority, null, null, null)
                    .ownedBy(owner).inGroup(key));
        }
        return fixture.submit(tasks);
    }

    private static List<UUID> sorted(List<UUID> ids) {
        return ids.stream().sorted().toList();
    }
}
