package io.taskfence.task;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;
import io.taskfence.store.FenceToken;
import io.taskfence.task.action.TaskActions;
import io.taskfence.task.submit.NewTask;
import io.taskfence.task.transition.Claim;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;
import io.taskfence.task.query.TaskQueries;

/**
 * Bulk actions (DESIGN.md, "Bulk actions"): a filter's tasks are cancelled or retried in bounded fenced batches whose
 * progress can be read; the same request again while the first runs is the first, and no task is moved twice; tasks
 * made or ended after the request, and other keys' tasks, are left alone.
 */
@QuarkusTest
@TestServers
class TaskActionsTest {

    private static final int MANY = 50_000;
    private static final int BATCH = 2_000;

    @Inject
    TaskActions actions;
    @Inject
    TaskTransitions transitions;
    @Inject
    TaskQueries queries;
    @Inject
    TaskFixtures fixtures;
    @Inject
    DataSource db;

    /** The actions job's fence, in this test's run of its own. */
    private final FenceToken fence = TaskFixtures.fence("actions-test-" + UUID.randomUUID(), 1);
    private final String marker = "bulk-" + UUID.randomUUID();

    /** This test's tasks go: retried ones are due, and would hold other tests' dispatch batches back. */
    @AfterEach
    void deleteThisTestsTasks() {
        Sql.run(db, "delete from tasks where payload ->> 'marker' = ?", marker);
    }

    @Test
    void aBulkRetryOfFiftyThousandDeadTasksRetriesEachOnceInBatchesAndShowsItsProgress() throws Exception {
        // Made PENDING, then DEAD by hand: the insert's and the update's triggers keep the side tables as for any task.
        Sql.run(db, "insert into tasks (id, type, payload, max_attempts, owner) select gen_random_uuid(), 'noop', "
                + "jsonb_build_object('marker', ?::text), 1, ? from generate_series(1, ?)", marker,
                ApiKeysForTests.SUBMIT_KEY_NAME, MANY);
        Sql.run(db, "update tasks set status = 'DEAD', attempt = 1, last_error = 'gateway timeout (' || ? || ')' "
                + "where payload ->> 'marker' = ?", marker, marker);
        String body = "{\"status\":\"DEAD\",\"error\":\"" + marker + "\"}";

        // Ten clients ask at once: one action starts, the others are answered it.
        Set<String> ids = ConcurrentHashMap.newKeySet();
        List<Integer> statuses = new ArrayList<>();
        Race.run(10, racer -> {
            ValidatableResponse answer = start("retry", body, ApiKeysForTests.SUBMIT_KEY);
            int status = answer.extract().statusCode();
            synchronized (statuses) {
                statuses.add(status);
            }
            ids.add(answer.extract().path("id"));
        });
        assertEquals(1, ids.size(), "one action for one request");
        assertEquals(1, statuses.stream().filter(status -> status == 202).count(), statuses::toString);
        UUID action = UUID.fromString(ids.iterator().next());
        // Asking counted nothing: the total is known once the walk has passed the last task.
        progress(action).body("state", equalTo("RUNNING")).body("$", not(hasKey("total"))).body("lookedAt", equalTo(0))
                .body("filter.statuses", equalTo(List.of("DEAD"))).body("requestedBy", equalTo(ApiKeysForTests.SUBMIT_KEY_NAME));

        List<Integer> seen = new ArrayList<>();
        int steps = 0;
        while (actions.step(fence, action, BATCH)) {
            steps++;
            seen.add(progress(action).extract().path("lookedAt"));
            if (steps == 3) {
                // Sent again while it runs: the same action, which goes on where it is.
                start("retry", body, ApiKeysForTests.SUBMIT_KEY).statusCode(200).body("id", equalTo(action.toString()))
                        .body("lookedAt", equalTo(3 * BATCH));
            }
        }
        assertEquals(MANY / BATCH, steps, "full batches of " + BATCH + ", then one that finds none left");
        assertEquals(List.of(BATCH, 2 * BATCH, 3 * BATCH), seen.subList(0, 3), "progress grows a batch at a time");
        progress(action).body("state", equalTo("DONE")).body("total", equalTo(MANY)).body("lookedAt", equalTo(MANY))
                .body("changed", equalTo(MANY))
                .body("overQuota", equalTo(0));
        assertEquals(MANY, Sql.count(db, "select count(*) from tasks where payload ->> 'marker' = ? and status = 'PENDING' "
                + "and attempt = 0", marker));
        assertEquals(MANY, Sql.count(db, "select count(*) from task_events e join tasks t on t.id = e.task_id "
                + "where t.payload ->> 'marker' = ? and e.from_status = 'DEAD' and e.to_status = 'PENDING'", marker),
                "each task retried once");
        // Done, the same request starts a new action, which finds nothing DEAD.
        UUID again = UUID.fromString(start("retry", body, ApiKeysForTests.SUBMIT_KEY).statusCode(202).extract().path("id"));
        assertFalse(actions.step(fence, again, BATCH));
        progress(again).body("state", equalTo("DONE")).body("total", equalTo(0)).body("changed", equalTo(0));
    }

    @Test
    void aBulkCancelTakesTheKeysMatchingUnfinishedTasksMadeBeforeItAndStopsRunningOnes() {
        Task pending = task(ApiKeysForTests.SUBMIT_KEY_NAME, "noop");
        Claim running = fixtures.claimed(task(ApiKeysForTests.SUBMIT_KEY_NAME, "noop"));
        Task otherType = task(ApiKeysForTests.SUBMIT_KEY_NAME, "sleep");
        Task othersTask = task(ApiKeysForTests.OTHER_SUBMIT_KEY_NAME, "noop");
        Claim done = fixtures.claimed(task(ApiKeysForTests.SUBMIT_KEY_NAME, "noop"));
        assertTrue(transitions.complete(done, null));

        UUID action = UUID.fromString(start("cancel", "{\"type\":\"noop\",\"text\":\"" + marker + "\"}",
                ApiKeysForTests.SUBMIT_KEY).statusCode(202).header("Location", containsString("/api/v1/actions/"))
                .extract().path("id"));
        Task madeAfter = task(ApiKeysForTests.SUBMIT_KEY_NAME, "noop");
        assertFalse(actions.step(fence, action, BATCH));

        progress(action).body("state", equalTo("DONE")).body("total", equalTo(2)).body("changed", equalTo(2));
        assertEquals(TaskStatus.CANCELLED, status(pending.id()));
        assertEquals(TaskStatus.CANCELLED, status(running.taskId()));
        assertFalse(transitions.complete(running, JsonNodeFactory.instance.objectNode()), "the running claim was voided");
        for (UUID untouched : List.of(otherType.id(), othersTask.id(), madeAfter.id())) {
            assertNotEquals(TaskStatus.CANCELLED, status(untouched), "task " + untouched);
        }
        assertEquals(TaskStatus.SUCCEEDED, status(done.taskId()));
    }

    /**
     * The dashboard's confirmation sends the bound its count used as {@code createdBefore} (tasks.js): a task made
     * after the count, before the confirmation, is not acted on.
     */
    @Test
    void aBulkCancelWithCreatedBeforeLeavesTheTasksMadeFromThenOn() {
        Task counted = task(ApiKeysForTests.SUBMIT_KEY_NAME, "noop");
        Instant countedBefore = Instant.parse(Sql.value(db, "select to_char(now() at time zone 'utc', "
                + "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"));
        Task madeAfterTheCount = task(ApiKeysForTests.SUBMIT_KEY_NAME, "noop");

        UUID action = UUID.fromString(start("cancel", "{\"text\":\"" + marker + "\",\"createdBefore\":\""
                + countedBefore + "\"}", ApiKeysForTests.SUBMIT_KEY).statusCode(202).extract().path("id"));
        assertFalse(actions.step(fence, action, BATCH));

        progress(action).body("state", equalTo("DONE")).body("total", equalTo(1)).body("changed", equalTo(1));
        assertEquals(TaskStatus.CANCELLED, status(counted.id()));
        assertEquals(TaskStatus.PENDING, status(madeAfterTheCount.id()));
    }

    @Test
    void badActionRequestsAreRefusedAndOtherKeysActionsAreNotShown() {
        start("delete", "{}", ApiKeysForTests.SUBMIT_KEY).statusCode(404).contentType("application/problem+json");
        start("retry", "{\"status\":\"PENDING\"}", ApiKeysForTests.SUBMIT_KEY).statusCode(400)
                .body("violations[0].field", equalTo("status"))
                .body("violations[0].message", containsString("[CANCELLED, DEAD]"));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).queryParam("action", "retry").queryParam("text", marker)
                .get("/api/v1/tasks/count").then().statusCode(200).body("count", equalTo(0));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).queryParam("action", "purge").get("/api/v1/tasks/count").then()
                .statusCode(400).body("violations[0].field", equalTo("action"));
        start("retry", "{\"createdAfter\":\"yesterday\"}", ApiKeysForTests.SUBMIT_KEY).statusCode(400)
                .body("violations[0].field", equalTo("createdAfter"));
        start("retry", "{\"stauts\":\"DEAD\"}", ApiKeysForTests.SUBMIT_KEY).statusCode(400).body("field", equalTo("stauts"));
        String mine = start("cancel", "{\"text\":\"" + marker + "\",\"createdAfter\":\"" + Instant.now() + "\"}",
                ApiKeysForTests.SUBMIT_KEY).statusCode(202).extract().path("id");
        given().auth().oauth2(ApiKeysForTests.OTHER_SUBMIT_KEY).get("/api/v1/actions/" + mine).then().statusCode(404);
        given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).get("/api/v1/actions/" + mine).then().statusCode(200);
        actions.step(fence, UUID.fromString(mine), BATCH);
    }

    private Task task(String owner, String type) {
        return transitions.submit(new NewTask(type,
                JsonNodeFactory.instance.objectNode().put("marker", marker), 5, 0, null, null, null).ownedBy(owner)).task();
    }

    private TaskStatus status(UUID id) {
        return queries.find(id).orElseThrow().status();
    }

    private static ValidatableResponse start(String action, String body, String key) {
        return given().auth().oauth2(key).contentType("application/json").body(body)
                .post("/api/v1/tasks/actions/" + action).then();
    }

    private static ValidatableResponse progress(UUID action) {
        return given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/actions/" + action).then()
                .statusCode(200);
    }
}
