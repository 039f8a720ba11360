package io.taskfence.task.submit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.store.TaskStoreException;
import io.taskfence.task.Sql;
import io.taskfence.testing.TestServers;
import io.taskfence.task.submit.outcome.Submission;

/**
 * Single submissions made at the same time share inserts, yet each caller gets exactly its own outcome,
 * and a submission PostgreSQL refuses fails alone.
 */
@QuarkusTest
@TestServers
class GroupedSubmissionsTest {

    private static final int THREADS = 32;
    private static final int EACH = 25;
    /** Keys the threads share: every thread submits the same request under each. */
    private static final int SHARED_KEYS = 10;

    @Inject
    GroupedSubmissions submissions;
    @Inject
    DataSource db;

    @Test
    void concurrentSubmissionsEachGetTheirOwnTaskAndSharedKeysOneTask() throws Exception {
        String run = UUID.randomUUID().toString();
        Map<String, UUID> answered = new ConcurrentHashMap<>(); // "thread/n" → the task its answer named
        Map<String, List<UUID>> byKey = new ConcurrentHashMap<>();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                done.add(threads.submit(() -> {
                    start.await();
                    for (int n = 0; n < EACH; n++) {
                        if (n < SHARED_KEYS) {
                            String key = run + "/shared-" + n;
                            Submission submission = submissions.submit(task(payload(run, "shared-" + n), key));
                            byKey.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>())
                                    .add(submission.task().id());
                        } else {
                            String mine = thread + "/" + n;
                            Submission submission = submissions.submit(task(payload(run, mine), null));
                            assertTrue(submission.created(), mine);
                            answered.put(mine, submission.task().id());
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> each : done) {
                each.get();
            }
        } finally {
            threads.shutdownNow();
        }

        int own = THREADS * (EACH - SHARED_KEYS);
        assertEquals(own, answered.size());
        assertEquals(own + SHARED_KEYS, Sql.count(db, "select count(*) from tasks where payload->>'run' = ?", run));
        // Each answer names the task made from that very submission.
        answered.forEach((mine, id) -> assertEquals(1, Sql.count(db,
                "select count(*) from tasks where id = ? and payload->>'mark' = ?", id, mine), mine));
        // One task per shared key, and every submission under it was told that task.
        assertEquals(SHARED_KEYS, byKey.size());
        byKey.forEach((key, ids) -> {
            assertEquals(THREADS, ids.size(), key);
            assertEquals(1, ids.stream().distinct().count(), key + " named " + ids.stream().distinct().toList());
        });
    }

    @Test
    void aSubmissionPostgreSQLRefusesFailsWithoutTheOthersOfItsGroup() throws Exception {
        String run = UUID.randomUUID().toString();
        String heldKey = run + "/held";
        ExecutorService threads = Executors.newCachedThreadPool();
        List<Thread> submitters = new CopyOnWriteArrayList<>();
        try (Connection holder = db.getConnection()) {
            // Holds the writer: its first insert waits for this transaction's row with the same key.
            holder.setAutoCommit(false);
            try (PreparedStatement unbounded = holder.prepareStatement(
                    "set local idle_in_transaction_session_timeout = 0")) {
                unbounded.execute(); // the pool's 10 s would end the test's hold on a slow machine
            }
            try (PreparedStatement insert = holder.prepareStatement("insert into tasks (id, type, payload, "
                    + "max_attempts, idempotency_key) values (?, 'noop', '{}', 3, ?)")) {
                insert.setObject(1, UUID.randomUUID());
                insert.setString(2, heldKey);
                insert.executeUpdate();
            }
            Future<Submission> held = threads.submit(() -> {
                submitters.add(Thread.currentThread());
                return submissions.submit(task(payload(run, "held"), heldKey));
            });
            await("the writer waits for the held key").atMost(Duration.ofSeconds(30))
                    .until(() -> Sql.count(db, "select count(*) from pg_stat_activity where wait_event_type = 'Lock' "
                            + "and query like '%insert into tasks (id%'") > 0);

            // These queue up behind it, so the writer takes them as one group.
            ObjectNode refused = payload(run, "refused").put("text", "a\u0000b"); // jsonb cannot hold U+0000
            Future<Submission> bad = threads.submit(() -> {
                submitters.add(Thread.currentThread());
                return submissions.submit(task(refused, null));
            });
            List<Future<Submission>> good = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                String mark = "good-" + i;
                good.add(threads.submit(() -> {
                    submitters.add(Thread.currentThread());
                    return submissions.submit(task(payload(run, mark), null));
                }));
            }
            await("all five wait for their answers").atMost(Duration.ofSeconds(30)).until(() -> submitters.size() == 5
                    && submitters.stream().allMatch(thread -> thread.getState() == Thread.State.WAITING));
            holder.rollback();

            assertTrue(held.get().created());
            TaskStoreException failure = assertThrows(TaskStoreException.class, () -> unwrap(bad));
            assertTrue(failure.getMessage().contains("Unicode"), failure.getMessage());
            for (Future<Submission> each : good) {
                assertTrue(each.get().created());
            }
        } finally {
            threads.shutdownNow();
        }
        assertEquals(4, Sql.count(db, "select count(*) from tasks where payload->>'run' = ?", run));
        assertEquals(0, Sql.count(db, "select count(*) from tasks where payload->>'mark' = 'refused' "
                + "and payload->>'run' = ?", run));
    }

    private static NewTask task(ObjectNode payload, String idempotencyKey) {
        return new NewTask("noop", payload, 3, 0, null, null, idempotencyKey);
    }

    private static ObjectNode payload(String run, String mark) {
        return JsonNodeFactory.instance.objectNode().put("run", run).put("mark", mark);
    }

    private static Submission unwrap(Future<Submission> future) throws Exception {
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw (Exception) e.getCause();
        }
    }
}
