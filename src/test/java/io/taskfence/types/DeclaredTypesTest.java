package io.taskfence.types;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import io.taskfence.task.Sql;
import io.taskfence.task.query.TaskQueries;
import io.taskfence.task.TaskStatus;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;
import io.taskfence.worker.RunningTasksProfile;

/**
 * Remote types an admin declares through the API (DESIGN.md, "Remote workers"): submitted, checked against their
 * schema and claimed like configured ones from the moment they are declared, also when another replica declared them,
 * and taken back only once none of their tasks waits or runs. Each test declares a type of its own and takes it back.
 */
@QuarkusTest
@TestServers
@TestProfile(RunningTasksProfile.class)
class DeclaredTypesTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String FRAMES = "{\"type\":\"object\",\"required\":[\"frame\"],"
            + "\"properties\":{\"frame\":{\"type\":\"integer\"}}}";

    @Inject
    TaskQueries queries;

    @Inject
    DataSource db;

    @AfterEach
    void takeBackWhatWasLeft() {
        Sql.run(db, "update tasks set status = 'CANCELLED' where type in ('render', 'render.elsewhere') "
                + "and status not in ('SUCCEEDED', 'DEAD', 'CANCELLED')");
        Sql.run(db, "delete from tasks_due where type in ('render', 'render.elsewhere')");
        Sql.run(db, "delete from tasks_in_flight where type in ('render', 'render.elsewhere')");
        admin().delete("/api/v1/types/render");
        admin().delete("/api/v1/types/render.elsewhere");
    }

    @Test
    void anAdminDeclaresARemoteTypeWhoseTasksAreCheckedClaimedAndRunUntilItIsTakenBack() {
        admin().contentType("application/json").body("{\"remote\":true,\"schema\":" + FRAMES + "}")
                .put("/api/v1/types/render").then().statusCode(201).body("type", is("render")).body("remote", is(true));
        admin().contentType("application/json").body("{\"remote\":true,\"schema\":" + FRAMES + "}")
                .put("/api/v1/types/render").then().statusCode(200);
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/types").then().statusCode(200)
                .body("findAll { it.remote }.type", hasItem("render"));

        submitter().body("{\"type\":\"render\",\"payload\":{\"frame\":\"first\"}}").post("/api/v1/tasks").then()
                .statusCode(422).body("detail", containsString("payload/frame"));
        UUID id = submit("render", "{\"frame\":1}");

        given().auth().oauth2(ApiKeysForTests.WORKER_KEY).contentType("application/json")
                .body("{\"types\":[\"render\"]}").post("/api/v1/claims").then().statusCode(403)
                .body("detail", containsString("may not claim 'render'"));
        JsonPath claim = claim("render");
        assertEquals(id.toString(), claim.getString("taskId"));
        assertEquals(1, claim.getInt("payload.frame"));
        anyWorker().contentType("application/json").body("{\"result\":{\"rendered\":true}}")
                .post("/api/v1/claims/" + claim.getString("claimId") + "/complete").then().statusCode(200);
        assertEquals(TaskStatus.SUCCEEDED, queries.find(id).orElseThrow().status());

        UUID waiting = submit("render", "{\"frame\":2}");
        admin().delete("/api/v1/types/render").then().statusCode(409).body("detail", containsString("wait or run"));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/" + waiting + "/cancel").then()
                .statusCode(200);
        admin().delete("/api/v1/types/render").then().statusCode(204);
        submitter().body("{\"type\":\"render\",\"payload\":{\"frame\":3}}").post("/api/v1/tasks").then().statusCode(422);
        admin().delete("/api/v1/types/render").then().statusCode(404);
        assertEquals(TaskStatus.SUCCEEDED, queries.find(id).orElseThrow().status(), "its ended tasks stay");
    }

    /**
     * A WAITING task of the type (a dependent, a batch's then task) holds the type as a PENDING one does: taken back,
     * it would later be released to this service's workers, which have no handler for it, and end DEAD.
     */
    @Test
    void aTypeWithWaitingTasksIsNotTakenBack() {
        admin().contentType("application/json").body("{\"remote\":true}").put("/api/v1/types/render").then()
                .statusCode(201);
        // A dependency that will not run for a year: its dependent waits.
        UUID dependency = UUID.fromString(submitter().body("{\"type\":\"noop\",\"payload\":{},"
                + "\"runAt\":\"2099-01-01T00:00:00Z\"}").post("/api/v1/tasks").then().statusCode(201).extract().path("id"));
        UUID dependent = UUID.fromString(submitter().body("{\"type\":\"render\",\"payload\":{},\"dependsOn\":[\""
                + dependency + "\"]}").post("/api/v1/tasks").then().statusCode(201).body("status", is("WAITING"))
                .extract().path("id"));

        admin().delete("/api/v1/types/render").then().statusCode(409).contentType("application/problem+json")
                .body("detail", containsString("tasks of 'render' wait"));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/" + dependent + "/cancel").then()
                .statusCode(200);
        JsonPath batch = submitter().body("{\"tasks\":[{\"type\":\"noop\",\"payload\":{},"
                + "\"runAt\":\"2099-01-01T00:00:00Z\"}],\"then\":{\"type\":\"render\",\"payload\":{}}}")
                .post("/api/v1/tasks/batch").then().statusCode(200).body("batch.thenStatus", is("WAITING")).extract()
                .jsonPath();
        admin().delete("/api/v1/types/render").then().statusCode(409).body("detail", containsString("wait"));

        for (String id : new String[] { batch.getString("batch.thenTaskId"), batch.getString("items[0].task.id"),
                dependency.toString() }) {
            given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/" + id + "/cancel").then()
                    .statusCode(200);
        }
        admin().delete("/api/v1/types/render").then().statusCode(204);
    }

    /**
     * Taking a type back waits for the submissions of it that are being stored, and then sees their tasks (409): here
     * a transaction holds the type's row as a submission does ({@link RemoteTypes#lockDeclared}) and stores a task of
     * it. (Before, the take-back did not wait, and answered 204 under it.)
     */
    @Test
    void aTypeIsNotTakenBackUnderASubmissionOfIt() throws Exception {
        admin().contentType("application/json").body("{\"remote\":true}").put("/api/v1/types/render").then()
                .statusCode(201);
        UUID task = UUID.randomUUID();
        try (Connection submission = db.getConnection()) {
            submission.setAutoCommit(false);
            try (Statement hold = submission.createStatement()) {
                hold.execute("set local idle_in_transaction_session_timeout = 0");
                // What RemoteTypes.lockDeclared does in a submission's transaction.
                hold.execute("select type from remote_types where type = 'render' for key share");
            }
            try (PreparedStatement insert = submission.prepareStatement("insert into tasks (id, type, payload, "
                    + "max_attempts, owner) values (?, 'render', '{}', 3, ?)")) {
                insert.setObject(1, task);
                insert.setString(2, ApiKeysForTests.SUBMIT_KEY_NAME);
                insert.executeUpdate();
            }
            CompletableFuture<Integer> takenBack = CompletableFuture.supplyAsync(
                    () -> admin().delete("/api/v1/types/render").then().extract().statusCode());
            // The take-back waits for the submission's lock (a bounded wait for it to get there, not a timing).
            long until = System.nanoTime() + WAIT.toNanos();
            while (Sql.count(db, "select count(*) from pg_stat_activity where wait_event_type = 'Lock' "
                    + "and query like '%from remote_types%' and query not like '%pg_stat_activity%'") == 0) {
                assertTrue(System.nanoTime() < until && !takenBack.isDone(), "the take-back did not wait: "
                        + (takenBack.isDone() ? takenBack.join() : "still nothing"));
                Thread.sleep(10);
            }
            submission.commit();
            assertEquals(409, takenBack.get(WAIT.toSeconds(), TimeUnit.SECONDS), "the stored task holds the type");
        }
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/" + task + "/cancel").then().statusCode(200);
        admin().delete("/api/v1/types/render").then().statusCode(204);
    }

    /**
     * A type taken back after this replica checked a submission against it (as by another replica whose announcement
     * did not come yet) is refused when the submission is stored, single, in a batch, or as a then task: nothing would
     * run it. Here a transaction deletes the type's row, as a take-back does, and commits only once the submission,
     * its checks passed (the row is still there for them), waits for that row ({@link RemoteTypes#lockDeclared}).
     */
    @Test
    void aSubmissionOfATypeTakenBackMeanwhileIsRefused() throws Exception {
        long before = Sql.count(db, "select count(*) from tasks where type = 'render'");

        takenBackUnder(() -> submitter().body("{\"type\":\"render\",\"payload\":{}}").post("/api/v1/tasks"))
                .then().statusCode(422).contentType("application/problem+json").body("field", is("type"))
                .body("detail", containsString("task type 'render' was taken back"));
        takenBackUnder(() -> submitter().body("{\"tasks\":[{\"type\":\"noop\",\"payload\":{}},"
                + "{\"type\":\"render\",\"payload\":{}}]}").post("/api/v1/tasks/batch"))
                .then().statusCode(200).body("created", is(1)).body("items[1].status", is(422))
                .body("items[1].problem.field", is("tasks[1].type"))
                .body("items[1].problem.detail", containsString("was taken back"));
        takenBackUnder(() -> submitter().body("{\"tasks\":[{\"type\":\"noop\",\"payload\":{}}],"
                + "\"then\":{\"type\":\"render\",\"payload\":{}}}").post("/api/v1/tasks/batch"))
                .then().statusCode(422).body("field", is("then.type"))
                .body("detail", containsString("was taken back"));
        assertEquals(before, Sql.count(db, "select count(*) from tasks where type = 'render'"));
    }

    /** Declares 'render', then answers {@code submission} made while a transaction takes the type's row away. */
    private Response takenBackUnder(Supplier<Response> submission) throws Exception {
        admin().contentType("application/json").body("{\"remote\":true}").put("/api/v1/types/render").then()
                .statusCode(201);
        try (Connection takeBack = db.getConnection()) {
            takeBack.setAutoCommit(false);
            try (Statement delete = takeBack.createStatement()) {
                delete.execute("set local idle_in_transaction_session_timeout = 0");
                delete.execute("delete from remote_types where type = 'render'");
            }
            CompletableFuture<Response> answer = CompletableFuture.supplyAsync(submission);
            long until = System.nanoTime() + WAIT.toNanos();
            while (Sql.count(db, "select count(*) from pg_stat_activity where wait_event_type = 'Lock' "
                    + "and query like '%from remote_types%' and query not like '%pg_stat_activity%'") == 0) {
                assertTrue(System.nanoTime() < until && !answer.isDone(), "the submission did not wait for the row: "
                        + (answer.isDone() ? answer.join().asString() : "still nothing"));
                Thread.sleep(10);
            }
            takeBack.commit();
            return answer.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    @Test
    void aTypeAnotherReplicaDeclaredIsKnownHereWithoutItsAnnouncement() {
        // As another replica's declaration whose announcement never came: the row alone.
        Sql.run(db, "insert into remote_types (type, declared_by) values ('render.elsewhere', 'another replica')");
        UUID id = submit("render.elsewhere", "{}");
        JsonPath claim = claim("render.elsewhere");
        assertEquals(id.toString(), claim.getString("taskId"), "dispatch put it on the type's own stream");
        anyWorker().contentType("application/json").body("{\"result\":{}}")
                .post("/api/v1/claims/" + claim.getString("claimId") + "/complete").then().statusCode(200);
    }

    @Test
    void whatCannotBeDeclaredOrTakenBackIsRefusedSayingWhy() {
        admin().contentType("application/json").body("{\"remote\":true}").put("/api/v1/types/http").then()
                .statusCode(422).body("detail", containsString("a handler of this service runs 'http'"));
        admin().contentType("application/json").body("{\"remote\":true}").put("/api/v1/types/resize").then()
                .statusCode(422).body("detail", containsString("remote by the configuration"));
        admin().contentType("application/json").body("{\"remote\":true}").put("/api/v1/types/Render").then()
                .statusCode(422).body("detail", containsString("no task type name"));
        admin().contentType("application/json").body("{\"remote\":false}").put("/api/v1/types/render").then()
                .statusCode(400).body(containsString("only remote types are declared"));
        admin().contentType("application/json").body("{\"remote\":true,\"schema\":{\"$ref\":\"#/$defs/missing\"}}")
                .put("/api/v1/types/render").then().statusCode(422).body("field", is("schema"));
        submitter().body("{\"remote\":true}").put("/api/v1/types/render").then().statusCode(403);
        admin().delete("/api/v1/types/resize").then().statusCode(409)
                .body("detail", containsString("remote by the configuration"));
        admin().get("/api/v1/types").then().statusCode(200).body("type", not(hasItem("render")));
    }

    private static RequestSpecification admin() {
        return given().auth().oauth2(ApiKeysForTests.ADMIN_KEY);
    }

    private static RequestSpecification submitter() {
        return given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json");
    }

    private static RequestSpecification anyWorker() {
        return given().auth().oauth2(ApiKeysForTests.ANY_WORKER_KEY);
    }

    private static UUID submit(String type, String payload) {
        return UUID.fromString(submitter().body("{\"type\":\"" + type + "\",\"payload\":" + payload + "}")
                .post("/api/v1/tasks").then().statusCode(201).extract().path("id"));
    }

    /** One claim of {@code type} by the key that may claim every remote type; its fields at the root. */
    private static JsonPath claim(String type) {
        JsonPath answer = null;
        long end = System.nanoTime() + WAIT.toNanos();
        while ((answer == null || answer.getList("claims").isEmpty()) && System.nanoTime() < end) {
            answer = anyWorker().contentType("application/json").body("{\"types\":[\"" + type + "\"],\"wait\":\"5s\"}")
                    .post("/api/v1/claims").then().statusCode(200).extract().jsonPath();
        }
        assertEquals(1, answer.getList("claims").size(), "one task of " + type + " claimed: " + answer.prettify());
        return answer.setRootPath("claims[0]");
    }
}
