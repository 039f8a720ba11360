package io.taskfence.dashboard;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import io.taskfence.task.Sql;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;
import io.taskfence.worker.RunningTasksProfile;

/**
 * The dashboard's history charts in a real browser (headless chromium) against a replica whose fenced jobs run: two hours
 * of a type's tasks, back-dated in PostgreSQL and folded into the history by the service's own job, show on the
 * overview's 24-hour charts and on the type's page, and a reload keeps the charts and the range. Screenshots go to
 * target/screenshots/ (overview-history, type-history).
 */
@QuarkusTest
@TestServers
@TestProfile(RunningTasksProfile.class)
class DashboardHistoryTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    /** How long the folding job may take to put the back-dated tasks into the history. */
    private static final Duration FOLDING = Duration.ofMinutes(3);
    /** The back-dated history: a task every 5 minutes over the last two hours, ended 1 to 2 minutes before now. */
    private static final int TASKS = 24;

    @TestHTTPResource("/")
    URL root;

    @Inject
    DataSource db;

    private HeadlessChromium chromium;
    private WebDriver browser;
    private WebDriverWait wait;
    private String type;

    @BeforeEach
    void openBrowser() {
        type = "hist-" + UUID.randomUUID().toString().substring(0, 8);
        as(ApiKeysForTests.ADMIN_KEY).contentType("application/json").body("{\"remote\":true}")
                .put("/api/v1/types/" + type).then().statusCode(201);
        chromium = HeadlessChromium.start();
        browser = chromium.driver;
        wait = new WebDriverWait(browser, PATIENCE);
        wait.ignoring(StaleElementReferenceException.class);
    }

    @AfterEach
    void closeBrowser() {
        chromium.close();
        as(ApiKeysForTests.ADMIN_KEY).delete("/api/v1/types/" + type);
    }

    @Test
    void aTwoHourHistoryShowsOnTheOverviewAndTheTypesPageAndAReloadKeepsIt() {
        Outcomes made = backdatedHistory();
        awaitFolded(made);

        // Tall enough for the screenshots to hold the four charts.
        browser.manage().window().setSize(new Dimension(1280, 1700));
        signIn(ApiKeysForTests.ADMIN_KEY);
        wait.until(ExpectedConditions.elementToBeClickable(By.id("range-24h"))).click();
        wait.until(ExpectedConditions.urlContains("#/overview?range=24h"));
        assertOverviewShows(made);
        chromium.screenshot("overview-history");

        // A reload asks the service again: the same charts, the same range.
        browser.navigate().refresh();
        assertOverviewShows(made);

        // The Types table's name leads to the type's page, which starts with the range chosen last.
        browser.findElement(By.linkText("Types & schedules")).click();
        WebElement row = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#types-table tr[data-name='" + type + "']")));
        assertEquals("yes", row.findElement(By.cssSelector("td[data-column='Remote']")).getText());
        assertEquals("—", row.findElement(By.cssSelector("td[data-column='Max per key']")).getText());
        assertEquals("—", row.findElement(By.cssSelector("td[data-column='Groups at limit']")).getText());
        row.findElement(By.cssSelector("a.type-link")).click();
        wait.until(ExpectedConditions.urlContains("#/types/" + type));
        assertTypePageShows(made);
        chromium.screenshot("type-history");

        browser.navigate().refresh();
        assertTypePageShows(made);

        // 7 days hold the same two hours, a point per hour.
        browser.findElement(By.id("range-7d")).click();
        wait.until(ExpectedConditions.urlContains("range=7d"));
        wait.until(ExpectedConditions.attributeToBe(By.id("range-7d"), "aria-current", "true"));
        waitForLegend("throughput-succeeded", made.succeeded());
        assertEquals(String.valueOf(made.dead()), text("failures-dead"));
    }

    /** The overview's 24-hour charts: this range chosen, dots with a value other than 0, the legend's totals. */
    private void assertOverviewShows(Outcomes made) {
        wait.until(ExpectedConditions.attributeToBe(By.id("range-24h"), "aria-current", "true"));
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#history[data-range='24h']")));
        // Other tests' tasks may add to every type's counts: at least this test's.
        waitForLegend("throughput-succeeded", made.succeeded(), true);
        assertTrue(count("throughput-started") >= made.succeeded() + made.dead(), text("throughput-started"));
        assertTrue(count("failures-dead") >= made.dead(), text("failures-dead"));
        assertTrue(nonZeroDots("#chart-throughput", "succeeded") >= 1, "a dot of succeeded tasks above 0");
        assertTrue(nonZeroDots("#chart-failures", "dead") >= 1, "a dot of dead tasks above 0");
        assertTrue(nonZeroDots("#chart-run", "p95") >= 1, "a run time's dot");
        assertTrue(browser.findElements(By.cssSelector("#chart-throughput polyline[data-series='succeeded']")).size() >= 1);
        // 24 hours from now, labelled every 3 hours.
        assertTrue(browser.findElements(By.cssSelector("#chart-throughput text.tick[data-at]")).size() >= 7,
                "the time axis's labels");
        assertTrue(text("history-title").endsWith("last 24 hours"), text("history-title"));
    }

    /** The type's page: its limits, and charts of its tasks alone over 24 hours. */
    private void assertTypePageShows(Outcomes made) {
        wait.until(ExpectedConditions.textToBe(By.id("type-name"), type));
        wait.until(ExpectedConditions.attributeToBe(By.id("range-24h"), "aria-current", "true"));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#type-limits dd[data-column='Remote']")));
        assertEquals("yes", text(By.cssSelector("#type-limits dd[data-column='Remote']")));
        waitForLegend("throughput-succeeded", made.succeeded());
        assertEquals(String.valueOf(made.succeeded() + made.dead()), text("throughput-started"));
        assertEquals(String.valueOf(made.dead()), text("failures-dead"));
        assertEquals(String.valueOf(made.cancelled()), text("failures-cancelled"));
        assertTrue(nonZeroDots("#chart-throughput", "succeeded") >= 1, "a dot of succeeded tasks above 0");
        assertTrue(nonZeroDots("#chart-wait", "p50") >= 1, "a wait time's dot");
        assertTrue(nonZeroDots("#chart-run", "max") >= 1, "a run time's dot");
        assertTrue(text("run-max").endsWith(" s"), "the longest run, in seconds: " + text("run-max"));
    }

    private void waitForLegend(String id, long expected) {
        waitForLegend(id, expected, false);
    }

    private void waitForLegend(String id, long expected, boolean atLeast) {
        wait.withMessage(() -> id + " to show " + (atLeast ? "at least " : "") + expected + ", it shows " + text(id))
                .until(ignored -> atLeast ? count(id) >= expected : count(id) == expected);
        wait.withMessage(() -> null);
    }

    // ---- the back-dated history

    /** What the back-dated tasks were. */
    record Outcomes(int succeeded, int dead, int cancelled) {
    }

    /**
     * Two hours of the type's tasks, inserted as the service would have left them: every 5 minutes one that was due,
     * started after a wait and ended; most SUCCEEDED on their happy path (the row holds it), four DEAD and two CANCELLED
     * before they started (the event log holds those). The history job walks the tasks by creation and would pass over
     * rows created before where it stands, so the history is started afresh (docs/history.md, "Not covered"; as
     * HistoryJobTest does), under the lock on the job's progress that each of its steps takes first: the running job
     * then folds every task again, these included, on its next run.
     */
    private Outcomes backdatedHistory() {
        Instant base = Instant.now().truncatedTo(ChronoUnit.MINUTES).minus(Duration.ofHours(2));
        int succeeded = 0;
        int dead = 0;
        int cancelled = 0;
        for (int k = 0; k < TASKS; k++) {
            Instant due = base.plus(Duration.ofMinutes(5L * k)).plusSeconds(5);
            if (k % 6 == 5) {
                UUID id = task("DEAD", due, null, due.plusSeconds(3));
                event(id, due.plusSeconds(1), "PENDING", "ENQUEUED");
                event(id, due.plusSeconds(1), "ENQUEUED", "PROCESSING");
                event(id, due.plusSeconds(3), "PROCESSING", "DEAD");
                dead++;
            } else if (k == 8 || k == 20) {
                UUID id = task("CANCELLED", due, null, due.plusSeconds(2));
                event(id, due.plusSeconds(2), "PENDING", "CANCELLED");
                cancelled++;
            } else {
                Instant started = due.plusMillis(200L * (k % 4 + 1));
                task("SUCCEEDED", due, started, started.plusMillis(1_500 + 100L * k));
                succeeded++;
            }
        }
        try (Connection connection = db.getConnection()) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.executeUpdate("update work_history_progress set tasks_created_at = default, tasks_id = default, "
                        + "events_through = default, events_mark = default, events_mark_at = default, "
                        + "hourly_before = default, folded_until = null");
                statement.executeUpdate("delete from work_history_unfinished");
                statement.executeUpdate("delete from work_history");
            }
            connection.commit();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return new Outcomes(succeeded, dead, cancelled);
    }

    private UUID task(String status, Instant due, Instant started, Instant updated) {
        UUID id = UUID.randomUUID();
        Sql.run(db, "insert into tasks (id, type, payload, status, attempt, max_attempts, run_at, created_at, updated_at, "
                + "owner, started_at) values (?, ?, '{}', ?, 1, 1, ?, ?, ?, ?, ?)", id, type, status, Timestamp.from(due),
                Timestamp.from(due.minusSeconds(1)), Timestamp.from(updated), ApiKeysForTests.ADMIN_KEY_NAME,
                started == null ? null : Timestamp.from(started));
        return id;
    }

    private void event(UUID task, Instant at, String from, String to) {
        Sql.run(db, "insert into task_event_log (task_id, at, from_status, to_status, attempt) values (?, ?, ?, ?, 1)",
                task, Timestamp.from(at), from, to);
    }

    /** Waits, through the API, until the folding job has put the back-dated tasks into the history. */
    private void awaitFolded(Outcomes made) {
        long end = System.nanoTime() + FOLDING.toNanos();
        long succeeded = -1;
        while (System.nanoTime() < end) {
            JsonPath history = as(ApiKeysForTests.ADMIN_KEY).queryParam("type", type)
                    .queryParam("from", Instant.now().minus(Duration.ofHours(3)).truncatedTo(ChronoUnit.SECONDS).toString())
                    .queryParam("step", "15m").get("/api/v1/stats/history").then().statusCode(200).extract().jsonPath();
            List<Integer> counts = history.getList("points.succeeded", Integer.class);
            succeeded = counts.stream().mapToLong(Integer::longValue).sum();
            if (succeeded == made.succeeded()) {
                return;
            }
            sleep(Duration.ofSeconds(1));
        }
        throw new AssertionError("the history holds " + succeeded + " of the " + made.succeeded()
                + " back-dated succeeded tasks after " + FOLDING);
    }

    // ---- helpers

    private void signIn(String key) {
        browser.get(root + "dashboard/");
        WebElement input = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")));
        input.sendKeys(key);
        browser.findElement(By.id("sign-in")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("nav")));
    }

    /** The dots of a series in a chart whose value is above 0 (a point where something happened). */
    private long nonZeroDots(String chart, String series) {
        return (Long) script("return Array.from(document.querySelectorAll(arguments[0] + ' circle[data-series=\"' + arguments[1]"
                + " + '\"]')).filter(function (c) { return Number(c.dataset.value) > 0; }).length;", chart, series);
    }

    /** An element's text read in the page, so that a redraw between finding and reading it does not matter. */
    private String text(String id) {
        Object text = script("var e = document.getElementById(arguments[0]); return e ? e.textContent : null", id);
        return text == null ? "" : text.toString().trim();
    }

    private String text(By selector) {
        return browser.findElement(selector).getText().trim();
    }

    private long count(String id) {
        String text = text(id);
        return text.matches("\\d+") ? Long.parseLong(text) : -1;
    }

    private Object script(String script, Object... arguments) {
        return ((JavascriptExecutor) browser).executeScript(script, arguments);
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static RequestSpecification as(String key) {
        return given().auth().oauth2(key);
    }
}
