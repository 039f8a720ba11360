package io.taskfence.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.testing.TestServers;

/**
 * A replica paused in the middle of a fenced transaction (a long GC, SIGSTOP, a node cut off the network) holds the
 * fences row until its transaction ends. PostgreSQL ends a session of the service's pool that waits for its client
 * inside a transaction longer than {@code idle_in_transaction_session_timeout}: the newer holder's transaction goes
 * on, the paused one's commit fails with nothing committed, and the pool serves working connections afterwards.
 * Before, the newer holder waited for as long as the paused one slept (BatchesIT, CI of stop 38).
 */
@QuarkusTest
@TestServers
class PausedHolderTest {

    @Inject
    TaskDatabase database;

    @Test
    void everyConnectionOfThePoolIsEndedByPostgresqlWhenItWaitsInATransaction() {
        assertEquals("10s", database.inConnection(connection -> {
            try (PreparedStatement show = connection.prepareStatement("show idle_in_transaction_session_timeout");
                    ResultSet row = show.executeQuery()) {
                row.next();
                return row.getString(1);
            }
        }));
    }

    @Test
    void aHolderPausedInItsFencedTransactionNeitherBlocksTheNextHolderNorCommitsWhenItWakes() throws Exception {
        String lock = "paused-holder-" + UUID.randomUUID();
        CountDownLatch paused = new CountDownLatch(1);
        CountDownLatch woken = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            CompletableFuture<Void> stale = CompletableFuture.runAsync(() -> database.fenced(
                    new FenceToken(lock, 1, "replica-a:1"), connection -> {
                        paused.countDown();
                        // The process stops here, after its fence check took the fences row, before its commit.
                        awaitUninterruptibly(woken);
                        return null;
                    }), threads);
            assertTrue(paused.await(30, TimeUnit.SECONDS), "the first holder never reached its pause");

            // Blocks on the fences row until PostgreSQL ends the paused session; without the time-out, forever.
            CompletableFuture<Void> newer = CompletableFuture.runAsync(() -> database.fenced(
                    new FenceToken(lock, 2, "replica-b:2"), connection -> null), threads);
            try {
                newer.get(60, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                fail("the newer holder still waits for the paused one after 60 s", e);
            }
            assertEquals("2 replica-b:2", fence(lock), "the newer holder's fenced transaction committed");

            woken.countDown();
            ExecutionException failure = assertThrows(ExecutionException.class,
                    () -> stale.get(30, TimeUnit.SECONDS), "the woken holder's commit failed");
            TaskStoreException cause = assertInstanceOf(TaskStoreException.class, failure.getCause());
            assertEquals("25P03", assertInstanceOf(SQLException.class, cause.getCause()).getSQLState(),
                    "ended for waiting in its transaction: " + cause);
            assertEquals("2 replica-b:2", fence(lock), "nothing of the paused holder's transaction was committed");

            // As many borrowers at once as the pool holds connections (20), each holding its own a moment: none is
            // handed the ended session.
            ExecutorService borrowers = Executors.newFixedThreadPool(20);
            try {
                List<CompletableFuture<Integer>> later = IntStream.range(0, 40).mapToObj(i -> CompletableFuture
                        .supplyAsync(() -> database.inTransaction(connection -> {
                            try (PreparedStatement one = connection.prepareStatement("select 1 from pg_sleep(0.1)");
                                    ResultSet row = one.executeQuery()) {
                                row.next();
                                return row.getInt(1);
                            }
                        }), borrowers)).toList();
                for (CompletableFuture<Integer> borrower : later) {
                    assertEquals(1, borrower.get(30, TimeUnit.SECONDS));
                }
            } finally {
                borrowers.shutdownNow();
            }
        } finally {
            threads.shutdownNow();
            database.inConnection(connection -> {
                try (PreparedStatement delete = connection.prepareStatement("delete from fences where name = ?")) {
                    delete.setString(1, lock);
                    return delete.executeUpdate();
                }
            });
        }
    }

    private String fence(String lock) {
        return database.inConnection(connection -> {
            try (PreparedStatement select = connection.prepareStatement(
                    "select token || ' ' || holder from fences where name = ?")) {
                select.setString(1, lock);
                try (ResultSet row = select.executeQuery()) {
                    return row.next() ? row.getString(1) : null;
                }
            }
        });
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
