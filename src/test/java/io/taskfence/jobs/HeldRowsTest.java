package io.taskfence.jobs;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.task.Sql;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.PostgresSchema;
import io.taskfence.testing.TestServers;
import io.taskfence.worker.RunningTasksProfile;

/**
 * A request that holds a due task's row (here the test's own transaction, as a long submission or a cancel with
 * many dependents would) holds dispatch no longer than {@code taskfence.job-lock-timeout} (2 s): the other due
 * tasks are dispatched and run meanwhile, and the held one goes on once its row is let go (DESIGN.md, "Fencing").
 * Before, dispatch's UPDATE waited for the row without bound, and every task behind it with it.
 */
@QuarkusTest
@TestServers
@TestProfile(RunningTasksProfile.class)
class HeldRowsTest {

    @Inject
    DataSource db;

    @Test
    void dispatchGoesOnWithTheOtherTasksWhileARequestHoldsOneAndTheHeldOneRunsOnceLetGo() throws Exception {
        List<UUID> tasks = new ArrayList<>();
        UUID held;
        List<UUID> others;
        // A connection of the test's own, as a client's: one of the service's pool would be ended by its
        // idle_in_transaction_session_timeout (10 s), letting the row go by itself.
        String schema = Sql.value(db, "select current_schema()");
        try (Connection client = DriverManager.getConnection(PostgresSchema.DATABASE_URL + "?currentSchema=" + schema,
                PostgresSchema.USER, "")) {
            client.setAutoCommit(false);
            typeControl("pause"); // stored and held before any runs: they fall due together, in one batch
            try {
                for (int i = 0; i < 5; i++) {
                    tasks.add(UUID.fromString(given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY)
                            .contentType("application/json").body("{\"type\":\"noop\",\"payload\":{}}")
                            .post("/api/v1/tasks").then().statusCode(201).extract().path("id")));
                }
                held = tasks.getFirst();
                others = tasks.subList(1, tasks.size());
                try (PreparedStatement hold = client.prepareStatement("select id from tasks where id = ? for update")) {
                    hold.setObject(1, held);
                    try (ResultSet row = hold.executeQuery()) {
                        row.next();
                    }
                }
            } finally {
                typeControl("resume");
            }

            // Dispatch waits for the held row at most taskfence.job-lock-timeout (2 s), then skips it.
            await().atMost(Duration.ofSeconds(12)).until(() -> succeeded(others) == others.size());
            assertEquals("PENDING", Sql.value(db, "select status from tasks where id = ?", held),
                    "the held task waits for its row");
            client.commit();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> succeeded(List.of(held)) == 1);
    }

    private long succeeded(List<UUID> ids) {
        return Sql.count(db, "select count(*) from tasks where id = any(?) and status = 'SUCCEEDED'",
                (Object) ids.toArray(UUID[]::new));
    }

    private static void typeControl(String action) {
        given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).post("/api/v1/types/noop/" + action).then().statusCode(200);
    }
}
