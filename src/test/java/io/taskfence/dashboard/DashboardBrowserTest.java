package io.taskfence.dashboard;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

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
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.specification.RequestSpecification;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;
import io.taskfence.testing.WorkerApiCalls;
import io.taskfence.worker.RunningTasksProfile;

/**
 * The dashboard in a real browser (headless chromium) against a replica whose dispatch and workers run: what an
 * operator with an admin key and a tenant with a submit key see and can do. Screenshots of each page go to
 * target/screenshots/.
 */
@QuarkusTest
@TestServers
@TestProfile(RunningTasksProfile.class)
class DashboardBrowserTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @TestHTTPResource("/")
    URL root;

    private HeadlessChromium chromium;
    private WebDriver browser;
    private WebDriverWait wait;

    @BeforeEach
    void openBrowser() {
        chromium = HeadlessChromium.start();
        browser = chromium.driver;
        wait = new WebDriverWait(browser, PATIENCE);
        wait.ignoring(StaleElementReferenceException.class);
    }

    @AfterEach
    void closeBrowser() {
        chromium.close();
    }

    @Test
    void anAdminSeesTheCountsChangeAsTasksRun() {
        signIn(ApiKeysForTests.ADMIN_KEY);
        wait.until(ExpectedConditions.presenceOfElementLocated(By.id("count-SUCCEEDED")));
        long before = number("count-SUCCEEDED");

        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(submit(ApiKeysForTests.ADMIN_KEY, "{\"type\":\"sleep\",\"payload\":{\"ms\":" + (200 * i) + "}}"));
        }
        ids.add(submit(ApiKeysForTests.ADMIN_KEY, "{\"type\":\"flaky\",\"payload\":{\"failTimes\":1},\"maxAttempts\":3}"));
        wait.until(ignored -> ids.stream().allMatch(id -> "SUCCEEDED".equals(status(id))));

        // SUCCEEDED only grows (retry takes DEAD and CANCELLED tasks only): the page must show this run's six.
        wait.withMessage(() -> "the overview to show at least " + (before + ids.size()) + " SUCCEEDED, it shows "
                + number("count-SUCCEEDED")).until(ignored -> number("count-SUCCEEDED") >= before + ids.size());
        wait.withMessage(() -> null);
        assertTrue(number("count-total") >= number("count-SUCCEEDED"), "the total counts every status");
        assertFalse(browser.findElements(By.cssSelector("#replicas li")).isEmpty(),
                "this replica's workers consume the stream, so the overview lists a consumer");
        assertTrue(text("overview-updated").startsWith("Updated"), text("overview-updated"));
        // The history's charts (DashboardHistoryTest looks at what they show) sit among the counts' cards.
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#chart-throughput svg.chart")));
        chromium.screenshot("overview");

        // A phone's width: the page reflows instead of scrolling sideways.
        browser.manage().window().setSize(new Dimension(390, 844));
        wait.until(ignored -> (Boolean) script("return document.documentElement.scrollWidth <= window.innerWidth"));
        chromium.screenshot("overview-phone");
    }

    @Test
    void anAdminFiltersOpensATaskCancelsItAndSeesARefusal() {
        String marker = "dashboard-" + UUID.randomUUID();
        String kept = submit(ApiKeysForTests.ADMIN_KEY, later("sleep", "{\"ms\":5,\"note\":\"" + marker + "\"}"));
        String other = submit(ApiKeysForTests.ADMIN_KEY, later("noop", "{}"));

        signIn(ApiKeysForTests.ADMIN_KEY);
        browser.findElement(By.linkText("Tasks")).click();
        filter("PENDING", "sleep", ApiKeysForTests.ADMIN_KEY_NAME, "100");
        WebElement row = wait.until(ExpectedConditions.presenceOfElementLocated(row(kept)));
        assertTrue(browser.findElements(row(other)).isEmpty(), "a noop task is not of type sleep");
        for (WebElement listed : browser.findElements(By.cssSelector("#tasks tbody tr"))) {
            assertEquals("PENDING", listed.getAttribute("data-status"));
        }
        chromium.screenshot("tasks");

        row.findElement(By.cssSelector("a.task-link")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("task-payload"), marker));
        assertEquals("PENDING", text("task-status"));
        assertHistoryShown(kept);

        browser.findElement(By.id("retry-task")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("action-outcome"),
                "cannot retry task " + kept + ": it is PENDING"));
        assertEquals("PENDING", status(kept), "a refused retry changes nothing");

        browser.findElement(By.id("cancel-task")).click();
        wait.until(ExpectedConditions.textToBe(By.id("task-status"), "CANCELLED"));
        assertEquals("CANCELLED", status(kept));
        chromium.screenshot("task");
    }

    @Test
    void theListingPagesWithItsCursorAndShowsABadFiltersDetail() {
        StringBuilder batch = new StringBuilder("{\"tasks\":[");
        for (int i = 0; i < 11; i++) {
            batch.append(i == 0 ? "" : ",").append(later("sleep", "{\"page\":" + i + "}"));
        }
        Set<String> ours = new HashSet<>(as(ApiKeysForTests.OTHER_SUBMIT_KEY).contentType("application/json")
                .body(batch.append("]}").toString()).post("/api/v1/tasks/batch").then().statusCode(200)
                .extract().<String>jsonPath().getList("items.task.id", String.class));
        assertEquals(11, ours.size());

        signIn(ApiKeysForTests.ADMIN_KEY);
        browser.get(root + "dashboard/#/tasks");
        filter("PENDING", "sleep", ApiKeysForTests.OTHER_SUBMIT_KEY_NAME, "10");
        wait.until(ignored -> listedIds().size() == 10);
        List<String> first = listedIds();
        assertTrue(ours.containsAll(first), "the newest ten of the key's PENDING sleep tasks are this test's: " + first);

        browser.findElement(By.id("next-page")).click();
        wait.until(ExpectedConditions.textToBe(By.id("page-number"), "Page 2"));
        List<String> second = listedIds();
        assertFalse(second.isEmpty());
        assertTrue(second.stream().noneMatch(first::contains), "page 2 repeats no task of page 1");
        Set<String> seen = new HashSet<>(first);
        seen.addAll(second);
        assertTrue(seen.containsAll(ours), "the two pages hold all eleven");

        browser.findElement(By.id("previous-page")).click();
        wait.until(ExpectedConditions.textToBe(By.id("page-number"), "Page 1"));
        assertEquals(first, listedIds());

        filter("", "Not A Type", "", "10");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#task-list [role=alert]"),
                "type: must match"));
    }

    @Test
    void aSubmitKeySeesAndCancelsItsOwnTasksOnlyAndSigningOutForgetsTheKey() {
        String mine = submit(ApiKeysForTests.SUBMIT_KEY, later("sleep", "{\"mine\":true}"));
        String theirs = submit(ApiKeysForTests.OTHER_SUBMIT_KEY, later("sleep", "{\"theirs\":true}"));

        signIn(ApiKeysForTests.SUBMIT_KEY);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("overview-problem"),
                "Cluster statistics are for admin keys"));
        assertTrue(browser.findElements(By.id("count-SUCCEEDED")).isEmpty());
        assertFalse(browser.findElement(By.cssSelector("#nav [data-page=controls]")).isDisplayed(),
                "no Types & schedules link for a submit key");
        assertFalse(browser.findElement(By.cssSelector("#nav [data-page=audit]")).isDisplayed(),
                "no Audit log link for a submit key");
        assertFalse(browser.findElement(By.cssSelector("#nav [data-page=keys]")).isDisplayed(),
                "no Keys link for a submit key");
        assertFalse(browser.findElement(By.cssSelector("#nav [data-page=workers]")).isDisplayed(),
                "no Workers link for a submit key");

        browser.findElement(By.linkText("Tasks")).click();
        assertTrue(browser.findElements(By.id("filter-owner")).isEmpty(), "a submit key has no owner filter");
        filter("PENDING", "sleep", null, "100");
        wait.until(ExpectedConditions.presenceOfElementLocated(row(mine)));
        assertTrue(browser.findElements(row(theirs)).isEmpty(), "another key's task is not listed");

        browser.findElement(row(mine)).findElement(By.cssSelector("a.task-link")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("task-payload"), "\"mine\": true"));
        // A key may cancel and retry the tasks it can see: its own.
        browser.findElement(By.id("cancel-task")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("action-outcome"),
                "Cancelled: the task is CANCELLED."));
        assertTrue(browser.findElement(By.id("retry-task")).isDisplayed(), "a submit key's task has its retry");

        browser.get(root + "dashboard/#/task/" + theirs);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#task-details [role=alert]"),
                "no task with id '" + theirs + "'"));
        assertTrue(browser.findElements(By.id("cancel-task")).isEmpty(), "actions on a task the key cannot see");
        // Not valid percent-encoding: the page still answers, with the API's refusal of such an id.
        browser.get(root + "dashboard/#/task/%E0");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#task-details [role=alert]")));
        browser.get(root + "dashboard/#/controls");
        wait.until(ExpectedConditions.urlContains("#/overview"));
        browser.get(root + "dashboard/#/audit");
        wait.until(ExpectedConditions.urlContains("#/overview"));
        browser.get(root + "dashboard/#/keys");
        wait.until(ExpectedConditions.urlContains("#/overview"));
        browser.get(root + "dashboard/#/workers");
        wait.until(ExpectedConditions.urlContains("#/overview"));

        browser.findElement(By.id("sign-out")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")));
        assertEquals(0L, script("return sessionStorage.length"), "signing out leaves nothing in session storage");
        browser.get(root + "dashboard/#/tasks");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")));
        assertTrue(browser.findElements(By.id("tasks")).isEmpty());
    }

    @Test
    void aWrongKeyIsRefusedAndNoKeyEverReachesTheAddress() {
        browser.get(root.toString());
        wait.until(ExpectedConditions.urlToBe(root + "dashboard/"));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")));
        chromium.screenshot("signin");

        browser.findElement(By.id("api-key")).sendKeys("not-a-key-of-this-service");
        browser.findElement(By.id("sign-in")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#sign-in-problem [role=alert]"),
                "This key is not accepted."));
        assertEquals(0L, script("return sessionStorage.length"), "a refused key is not kept");
        assertFalse(browser.getCurrentUrl().contains("not-a-key"), browser.getCurrentUrl());

        signIn(ApiKeysForTests.ADMIN_KEY);
        assertFalse(browser.getCurrentUrl().contains(ApiKeysForTests.ADMIN_KEY), browser.getCurrentUrl());
    }

    @Test
    void anAdminSeesSchedulesDueAndPausesAScheduleAndATypeThatTheOverviewThenShows() {
        String schedule = "dash-" + UUID.randomUUID().toString().substring(0, 8);
        as(ApiKeysForTests.ADMIN_KEY).contentType("application/json")
                .body("{\"name\":\"" + schedule + "\",\"cron\":\"0 3 1 1 *\",\"type\":\"noop\",\"payload\":{}}")
                .post("/api/v1/schedules").then().statusCode(201);
        By due = By.cssSelector("#schedules-due li[data-name='" + schedule + "']");
        By pausedOnOverview = By.cssSelector("#overview-types tr[data-name='flaky']");
        try {
            signIn(ApiKeysForTests.ADMIN_KEY);
            wait.until(ExpectedConditions.visibilityOfElementLocated(due));

            browser.findElement(By.linkText("Types & schedules")).click();
            WebElement scheduleRow = wait.until(ExpectedConditions.visibilityOfElementLocated(
                    By.cssSelector("#schedules-table tr[data-name='" + schedule + "']")));
            scheduleRow.findElement(By.tagName("button")).click();
            wait.until(driver -> Boolean.TRUE.equals(as(ApiKeysForTests.ADMIN_KEY).get("/api/v1/schedules/{name}", schedule)
                    .then().statusCode(200).extract().path("paused")));
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("controls-outcome"), "done"));
            By typeRow = By.cssSelector("#types-table tr[data-name='flaky']");
            WebElement flaky = wait.until(ExpectedConditions.visibilityOfElementLocated(typeRow));
            // Columns, not JSON: flaky is local and has no limit in this profile.
            assertEquals("no", flaky.findElement(By.cssSelector("td[data-column='Remote']")).getText());
            assertEquals("—", flaky.findElement(By.cssSelector("td[data-column='In flight / max concurrency']")).getText());
            assertTrue(browser.findElements(By.cssSelector("#types-table code.details")).isEmpty(), "no JSON column");
            flaky.findElement(By.tagName("button")).click();
            wait.until(driver -> pausedType("flaky"));
            wait.until(ExpectedConditions.textToBePresentInElementLocated(typeRow, "yes"));
            chromium.screenshot("controls");

            browser.findElement(By.linkText("Overview")).click();
            wait.until(ExpectedConditions.textToBePresentInElementLocated(pausedOnOverview, "paused"));
            wait.until(ExpectedConditions.invisibilityOfElementLocated(due));

            // Both changes are in the audit log, newest first, with this admin key's name; the form narrows it.
            browser.findElement(By.linkText("Audit log")).click();
            WebElement newest = wait.until(ExpectedConditions.visibilityOfElementLocated(
                    By.cssSelector("#audit tbody tr:first-child")));
            assertTrue(newest.getText().contains("pauseType") && newest.getText().contains("/api/v1/types/flaky/pause")
                    && newest.getText().contains(ApiKeysForTests.ADMIN_KEY_NAME), newest.getText());
            replace(By.id("audit-operation"), "changeSchedule");
            browser.findElement(By.cssSelector("#audit-filters button")).click();
            wait.until(ExpectedConditions.urlContains("operation=changeSchedule"));
            WebElement changed = wait.until(ExpectedConditions.visibilityOfElementLocated(By.xpath(
                    "//table[@id='audit']//tr[contains(., '/api/v1/schedules/" + schedule + "')]")));
            assertTrue(changed.getText().contains("PATCH") && changed.getText().contains("200"), changed.getText());
            assertTrue(browser.findElements(By.xpath("//table[@id='audit']//tr[contains(., 'pauseType')]")).isEmpty(),
                    "the filter leaves other operations out");
            chromium.screenshot("audit");
        } finally {
            as(ApiKeysForTests.ADMIN_KEY).post("/api/v1/types/flaky/resume");
            as(ApiKeysForTests.ADMIN_KEY).delete("/api/v1/schedules/{name}", schedule);
        }
    }

    /**
     * An admin sees the configured keys, makes a key through the form, is shown its secret once (which works), rotates
     * it (a new secret; the old one works for the overlap), revokes it (both stop), and reads a refusal's detail.
     */
    @Test
    void anAdminMakesRotatesAndRevokesAKeyWhoseSecretIsShownOnce() {
        String name = "dash" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        By keyRow = By.cssSelector("#keys tr[data-name='" + name + "']");
        try {
            signIn(ApiKeysForTests.ADMIN_KEY);
            browser.findElement(By.linkText("Keys")).click();
            WebElement own = wait.until(ExpectedConditions.visibilityOfElementLocated(
                    By.cssSelector("#keys tr[data-name='" + ApiKeysForTests.ADMIN_KEY_NAME + "']")));
            assertTrue(own.getText().contains("configured"), own.getText());
            assertTrue(own.findElements(By.tagName("button")).isEmpty(), "a configured key cannot be changed here");
            assertTrue(browser.findElements(By.id("key-secret")).isEmpty(), "no secret before one is made");

            replace(By.id("key-name"), name);
            new Select(browser.findElement(By.id("key-role"))).selectByValue("submit");
            assertFalse(browser.findElement(By.id("key-types")).isDisplayed(), "types are for a worker key");
            replace(By.id("key-max-unfinished"), "50");
            replace(By.id("key-rate"), "20/s");
            browser.findElement(By.id("make-key")).click();
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("key-secret")));
            String secret = text("key-secret");
            assertTrue(text("key-secret-box").contains("will not be shown again"), text("key-secret-box"));
            assertTrue(text("key-callback-secret").startsWith("whsec_"), text("key-callback-secret"));
            WebElement row = wait.until(ExpectedConditions.visibilityOfElementLocated(keyRow));
            assertEquals("submit", row.findElement(By.cssSelector("td[data-column='Role']")).getText());
            assertEquals("50", row.findElement(By.cssSelector("td[data-column='Max unfinished']")).getText());
            assertEquals("20/s", row.findElement(By.cssSelector("td[data-column='Rate']")).getText());
            as(secret).get("/api/v1/tasks").then().statusCode(200);
            assertFalse(String.valueOf(script("return JSON.stringify(localStorage) + JSON.stringify(sessionStorage)"))
                    .contains(secret), "the secret is kept in no storage");
            assertFalse(browser.getCurrentUrl().contains(secret), browser.getCurrentUrl());
            chromium.screenshot("keys");

            WebElement overlap = row.findElement(By.cssSelector("input.overlap"));
            assertEquals("1h", overlap.getAttribute("value"));
            row.findElement(By.cssSelector("button.rotate")).click();
            wait.until(ignored -> !text("key-secret").isEmpty() && !text("key-secret").equals(secret));
            String rotated = text("key-secret");
            assertTrue(text("key-secret-box").contains("previous secrets work until"), text("key-secret-box"));
            as(rotated).get("/api/v1/tasks").then().statusCode(200);
            as(secret).get("/api/v1/tasks").then().statusCode(200); // the hour's overlap

            wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#keys-list:not([aria-busy])")));
            browser.findElement(keyRow).findElement(By.cssSelector("button.revoke")).click();
            wait.until(ExpectedConditions.alertIsPresent()).accept();
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("keys-outcome"), "Key " + name + " revoked."));
            wait.until(ExpectedConditions.invisibilityOfElementLocated(keyRow));
            as(secret).get("/api/v1/tasks").then().statusCode(401);
            as(rotated).get("/api/v1/tasks").then().statusCode(401);

            // A revoked key's name is not given again: the refusal shows the problem's detail.
            replace(By.id("key-name"), name);
            browser.findElement(By.id("make-key")).click();
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#keys-outcome [role=alert]"),
                    "a key named '" + name + "' exists or existed"));

            // Left and opened again, the page shows no secret.
            browser.findElement(By.linkText("Overview")).click();
            browser.findElement(By.linkText("Keys")).click();
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#keys tbody tr")));
            assertTrue(browser.findElements(By.id("key-secret")).isEmpty(), "a secret is shown once");
        } finally {
            as(ApiKeysForTests.ADMIN_KEY).delete("/api/v1/keys/{name}", name);
        }
    }

    /**
     * An admin sees a remote worker that claimed a task of a remote type: its key's name, the name it claims with, the
     * type, the claim it holds, and how long ago it claimed, beat and called, the page refreshing while it is open.
     */
    @Test
    void anAdminSeesARemoteWorkerWithItsKeyItsTypeAndItsClaimInHand() {
        String type = "workers-" + UUID.randomUUID().toString().substring(0, 8);
        String name = "dash-" + UUID.randomUUID().toString().substring(0, 8);
        as(ApiKeysForTests.ADMIN_KEY).contentType("application/json").body("{\"remote\":true}")
                .put("/api/v1/types/" + type).then().statusCode(201);
        String id = submit(ApiKeysForTests.SUBMIT_KEY, "{\"type\":\"" + type + "\",\"payload\":{}}");
        // The profile runs dispatch, so a claim gets the task; its lease is 3 s: the worker heartbeats each second.
        String claimId = claimAs(name, type);
        try (WorkerApiCalls.Heartbeats kept = WorkerApiCalls.heartbeating(ApiKeysForTests.ANY_WORKER_KEY,
                List.of(claimId))) {
            signIn(ApiKeysForTests.ADMIN_KEY);
            browser.findElement(By.linkText("Workers")).click();
            wait.until(ExpectedConditions.visibilityOfElementLocated(
                    By.cssSelector("#workers tr[data-name='" + name + "']")));
            assertEquals(ApiKeysForTests.ANY_WORKER_KEY_NAME, workerCell(name, "Key"));
            assertEquals(name, workerCell(name, "Worker"));
            assertEquals(type, workerCell(name, "Types"));
            // Sightings are written after the answers: the page shows the heartbeats within a refresh or two.
            wait.withMessage(() -> "the worker's heartbeat and claim in hand, the row shows "
                    + workerCell(name, "Last heartbeat") + " and " + workerCell(name, "Claims in hand"))
                    .until(ignored -> String.valueOf(workerCell(name, "Last heartbeat")).endsWith(" ago")
                            && "1".equals(workerCell(name, "Claims in hand")));
            wait.withMessage(() -> null);
            for (String column : List.of("Last claim", "Last seen")) {
                String shown = workerCell(name, column);
                assertTrue(String.valueOf(shown).matches("\\d+ (s|min) ago"), column + ": " + shown);
            }
            assertEquals(Boolean.TRUE, inWorkerCell(name, "Last seen",
                    "var at = cell.querySelector('time'); return at.title.indexOf(at.dateTime) >= 0;"),
                    "the full time is in the title");
            assertTrue(text("workers-updated").startsWith("Updated"), text("workers-updated"));
            chromium.screenshot("workers");

            // The page asks again every few seconds while it is open, and no more once it is left.
            long asked = workersCalls();
            wait.until(ignored -> workersCalls() > asked);
            browser.findElement(By.linkText("Overview")).click();
            wait.until(ExpectedConditions.presenceOfElementLocated(By.id("count-SUCCEEDED")));
            sleep(Duration.ofSeconds(1)); // a call made just before leaving has answered
            long left = workersCalls();
            sleep(Duration.ofSeconds(6));
            assertEquals(left, workersCalls(), "the Workers page's refresh stopped when it was left");
        } finally {
            worker().post("/api/v1/claims/" + claimId + "/release");
            as(ApiKeysForTests.ADMIN_KEY).post("/api/v1/tasks/{id}/cancel", id);
            as(ApiKeysForTests.ADMIN_KEY).delete("/api/v1/types/" + type); // 409 if the task were still unfinished
        }
    }

    /** The id of a claim of {@code type} by the worker key as the worker {@code name}, claiming again until one comes. */
    private static String claimAs(String name, String type) {
        long end = System.nanoTime() + PATIENCE.toNanos();
        List<String> got = List.of();
        while (got.isEmpty() && System.nanoTime() < end) {
            got = worker().contentType("application/json")
                    .body("{\"types\":[\"" + type + "\"],\"wait\":\"5s\",\"worker\":\"" + name + "\"}")
                    .post("/api/v1/claims").then().statusCode(200).extract().jsonPath()
                    .getList("claims.claimId", String.class);
        }
        assertEquals(1, got.size(), "one task of " + type + " claimed");
        return got.get(0);
    }

    /** How many times this page called GET /api/v1/workers (from the browser's resource timings). */
    private long workersCalls() {
        return (Long) script("performance.setResourceTimingBufferSize(100000);"
                + "return performance.getEntriesByType('resource')"
                + ".filter(function (e) { return new URL(e.name).pathname === '/api/v1/workers'; }).length;");
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The text of a column of the Workers page's row of the worker {@code name}, read in the page; null without one. */
    private String workerCell(String name, String column) {
        Object text = inWorkerCell(name, column, "return cell.textContent.trim();");
        return text == null ? null : text.toString();
    }

    /** What {@code script} returns of the {@code cell} of a column of the worker {@code name}'s row; null without one. */
    private Object inWorkerCell(String name, String column, String script) {
        return script("var name = arguments[0], column = arguments[1];"
                + "var row = Array.from(document.querySelectorAll('#workers tbody tr'))"
                + ".find(function (r) { return r.dataset.name === name; });"
                + "var cell = row && Array.from(row.cells).find(function (c) { return c.dataset.column === column; });"
                + "if (!cell) { return null; }" + script, name, column);
    }

    private static boolean pausedType(String type) {
        List<Map<String, Object>> types = as(ApiKeysForTests.ADMIN_KEY).get("/api/v1/types").then().statusCode(200)
                .extract().jsonPath().getList("$");
        return types.stream().anyMatch(state -> type.equals(state.get("type")) && Boolean.TRUE.equals(state.get("paused")));
    }

    /** A tenant follows its batch as its tasks end, closes it, and sees it complete, its then task released. */
    @Test
    void aSubmitKeyFollowsABatchsProgressClosesItAndSeesItComplete() {
        String batch = as(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"tasks\":[{\"type\":\"sleep\",\"payload\":{\"ms\":50}},{\"type\":\"sleep\",\"payload\":{\"ms\":100}},"
                        + "{\"type\":\"flaky\",\"payload\":{\"failTimes\":5},\"maxAttempts\":1}],"
                        + "\"then\":{\"type\":\"noop\",\"payload\":{}},\"open\":true}")
                .post("/api/v1/tasks/batch").then().statusCode(200).extract().path("batch.id");

        signIn(ApiKeysForTests.SUBMIT_KEY);
        browser.findElement(By.linkText("Batches")).click();
        WebElement row = wait.until(ExpectedConditions.presenceOfElementLocated(
                By.cssSelector("#batches tr[data-id='" + batch + "']")));
        assertEquals("OPEN", row.getAttribute("data-status"));
        row.findElement(By.cssSelector("a.batch-link")).click();
        wait.until(ExpectedConditions.textToBe(By.id("batch-status"), "OPEN"));
        // Refreshed as its tasks end: all three, one of them DEAD, while the open batch's then task still waits.
        wait.withMessage(() -> "the progress to reach 3 of 3, it shows " + text("batch-progress"))
                .until(ignored -> text("batch-progress").startsWith("3 of 3 ended"));
        wait.withMessage(() -> null);
        assertEquals("1", text("batch-dead"));
        assertEquals("WAITING", text("batch-then-status"));
        chromium.screenshot("batch-open");

        browser.findElement(By.id("close-batch")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("batch-outcome"), "Closed"));
        wait.until(ExpectedConditions.textToBe(By.id("batch-status"), "COMPLETE"));
        assertTrue(browser.findElements(By.id("close-batch")).isEmpty(), "a closed batch offers no close");
        chromium.screenshot("batch");

        browser.findElement(By.id("batch-dead")).findElement(By.tagName("a")).click();
        wait.until(ignored -> listedIds().size() == 1);
        assertEquals("DEAD", browser.findElement(By.cssSelector("#tasks tbody tr")).getAttribute("data-status"));
    }

    /**
     * A tenant searches its DEAD tasks by the text of their payloads, is told how many a bulk retry would take, confirms,
     * and follows the action to its end; only the matching tasks were retried, each once.
     */
    @Test
    void aSubmitKeySearchesItsDeadTasksAndRetriesAllThatMatchOnceConfirmed() {
        String marker = "nightly-" + UUID.randomUUID().toString().substring(0, 8);
        List<String> matching = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            matching.add(submit(ApiKeysForTests.SUBMIT_KEY,
                    "{\"type\":\"flaky\",\"payload\":{\"failTimes\":9,\"job\":\"" + marker + "\"},\"maxAttempts\":1}"));
        }
        String other = submit(ApiKeysForTests.SUBMIT_KEY, "{\"type\":\"flaky\",\"payload\":{\"failTimes\":9},\"maxAttempts\":1}");
        List<String> all = new ArrayList<>(matching);
        all.add(other);
        wait.until(ignored -> all.stream().allMatch(id -> "DEAD".equals(status(id))));

        signIn(ApiKeysForTests.SUBMIT_KEY);
        browser.findElement(By.linkText("Tasks")).click();
        wait.until(ExpectedConditions.elementToBeClickable(By.id("apply-filters")));
        new Select(browser.findElement(By.id("filter-status"))).selectByValue("DEAD");
        replace(By.id("filter-text"), marker);
        browser.findElement(By.id("apply-filters")).click();
        wait.until(ignored -> new HashSet<>(listedIds()).equals(new HashSet<>(matching)));

        browser.findElement(By.id("bulk-retry")).click();
        WebElement confirm = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("bulk-confirm")));
        assertEquals("Retry 6 tasks", confirm.getText());
        assertTrue(text("bulk-question").startsWith("6 DEAD or CANCELLED tasks match these filters (status DEAD, text "
                + marker + ")"), text("bulk-question"));
        chromium.screenshot("tasks-bulk-confirm");
        confirm.click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("bulk-progress"), "Done: 6 of 6 tasks retried"));
        chromium.screenshot("tasks-bulk-done");

        for (String id : matching) {
            assertEquals(1, as(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/tasks/{id}/events", id).then().statusCode(200)
                    .extract().jsonPath().getList("items.findAll { it.from == 'DEAD' && it.to == 'PENDING' }").size(),
                    "task " + id + " was retried once");
        }
        assertEquals(0, as(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/tasks/{id}/events", other).then().statusCode(200)
                .extract().jsonPath().getList("items.findAll { it.from == 'DEAD' }").size(), "the other task was not");
    }

    /**
     * The bulk cancel acts on what its confirmation counted: a task made after the count, before the confirmation, is
     * left as it is (the count's createdBefore goes into the action's filter).
     */
    @Test
    void aBulkCancelLeavesATaskMadeBetweenTheCountAndTheConfirmation() {
        String marker = "counted-" + UUID.randomUUID().toString().substring(0, 8);
        List<String> counted = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            counted.add(submit(ApiKeysForTests.SUBMIT_KEY, later("noop", "{\"job\":\"" + marker + "\"}")));
        }
        signIn(ApiKeysForTests.SUBMIT_KEY);
        browser.findElement(By.linkText("Tasks")).click();
        wait.until(ExpectedConditions.elementToBeClickable(By.id("apply-filters")));
        replace(By.id("filter-text"), marker);
        browser.findElement(By.id("apply-filters")).click();
        wait.until(ignored -> new HashSet<>(listedIds()).equals(new HashSet<>(counted)));
        browser.findElement(By.id("bulk-cancel")).click();
        WebElement confirm = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("bulk-confirm")));
        assertEquals("Cancel 3 tasks", confirm.getText());

        String madeSince = submit(ApiKeysForTests.SUBMIT_KEY, later("noop", "{\"job\":\"" + marker + "\"}"));
        confirm.click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("bulk-progress"), "Done: 3 of 3 tasks cancelled"));
        for (String id : counted) {
            assertEquals("CANCELLED", status(id), "task " + id);
        }
        assertEquals("PENDING", status(madeSince), "the task made after the count");
    }

    @Test
    void aRemoteWorkersProgressShowsAsABarThatMovesWhileTheTaskPageIsOpen() {
        String type = "progress-" + UUID.randomUUID().toString().substring(0, 8);
        as(ApiKeysForTests.ADMIN_KEY).contentType("application/json").body("{\"remote\":true}")
                .put("/api/v1/types/" + type).then().statusCode(201);
        String id = submit(ApiKeysForTests.ADMIN_KEY, "{\"type\":\"" + type + "\",\"payload\":{}}");
        String claimId = WorkerApiCalls.claimOne(ApiKeysForTests.ANY_WORKER_KEY, type, PATIENCE).getString("claimId");
        try (WorkerApiCalls.Heartbeats kept = WorkerApiCalls.heartbeating(ApiKeysForTests.ANY_WORKER_KEY,
                List.of(claimId))) {
            watchProgress(id, "/api/v1/claims/" + claimId);
        }
        as(ApiKeysForTests.ADMIN_KEY).delete("/api/v1/types/" + type).then().statusCode(204);
    }

    private void watchProgress(String id, String claim) {
        report(claim, 1);
        signIn(ApiKeysForTests.ADMIN_KEY);
        browser.get(root + "dashboard/#/task/" + id);
        wait.until(ExpectedConditions.textToBe(By.id("task-progress-message"), "page 1 of 4"));
        assertEquals("1", browser.findElement(By.id("task-progress-bar")).getAttribute("value"));

        // The open page is told through its long poll (of 30 s), not reloaded: well within that.
        WebDriverWait soon = new WebDriverWait(browser, Duration.ofSeconds(10));
        report(claim, 3);
        soon.until(ExpectedConditions.textToBe(By.id("task-progress-message"), "page 3 of 4"));
        assertEquals("3", browser.findElement(By.id("task-progress-bar")).getAttribute("value"));
        assertTrue(text("task-progress").contains("3 of 4 (75 %)"), text("task-progress"));
        chromium.screenshot("task-progress");

        worker().contentType("application/json").body("{\"result\":{}}").post(claim + "/complete").then().statusCode(200);
        soon.until(ExpectedConditions.textToBe(By.id("task-status"), "SUCCEEDED"));
    }

    /** The worker's report {@code page <done> of 4}. */
    private static void report(String claim, int done) {
        worker().contentType("application/json").body("{\"progress\":{\"done\":" + done + ",\"total\":4,"
                + "\"message\":\"page " + done + " of 4\"}}").post(claim + "/progress").then().statusCode(204);
    }

    private static RequestSpecification worker() {
        return as(ApiKeysForTests.ANY_WORKER_KEY);
    }

    // ---- helpers

    private void signIn(String key) {
        browser.get(root + "dashboard/");
        WebElement input = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("api-key")));
        input.sendKeys(key);
        browser.findElement(By.id("sign-in")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("nav")));
    }

    /** Sets the listing's filters (null leaves one as it is) and applies them. */
    private void filter(String status, String type, String owner, String limit) {
        wait.until(ExpectedConditions.elementToBeClickable(By.id("apply-filters")));
        new Select(browser.findElement(By.id("filter-status"))).selectByValue(status);
        replace(By.id("filter-type"), type);
        if (owner != null) {
            replace(By.id("filter-owner"), owner);
        }
        new Select(browser.findElement(By.id("filter-limit"))).selectByValue(limit);
        browser.findElement(By.id("apply-filters")).click();
        wait.until(ignored -> browser.findElements(By.cssSelector("#task-list[aria-busy]")).isEmpty()
                && !browser.findElements(By.cssSelector("#task-list > *")).isEmpty());
    }

    private void replace(By field, String value) {
        WebElement input = browser.findElement(field);
        input.clear();
        input.sendKeys(value);
    }

    private List<String> listedIds() {
        List<String> ids = new ArrayList<>();
        for (WebElement row : browser.findElements(By.cssSelector("#tasks tbody tr"))) {
            ids.add(row.getAttribute("data-id"));
        }
        return ids;
    }

    /** The history table shows the task's creation (from nothing to PENDING) as its first row. */
    private void assertHistoryShown(String id) {
        WebElement first = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#task-events tbody tr:first-child")));
        assertTrue(first.getText().contains("PENDING"), "the first event of " + id + ": " + first.getText());
    }

    private static By row(String id) {
        return By.cssSelector("#tasks tr[data-id='" + id + "']");
    }

    /** An element's text read in the page, so that a redraw between finding and reading it does not matter. */
    private String text(String id) {
        Object text = script("var e = document.getElementById(arguments[0]); return e ? e.textContent : null", id);
        return text == null ? "" : text.toString().trim();
    }

    private long number(String id) {
        String text = text(id);
        return text.isEmpty() ? -1 : Long.parseLong(text);
    }

    private Object script(String script, Object... arguments) {
        return ((JavascriptExecutor) browser).executeScript(script, arguments);
    }

    private static String later(String type, String payload) {
        return "{\"type\":\"" + type + "\",\"payload\":" + payload + ",\"runAt\":\"" + Instant.now().plus(Duration.ofHours(1))
                + "\"}";
    }

    private static String submit(String key, String body) {
        return as(key).contentType("application/json").body(body).post("/api/v1/tasks").then().statusCode(201)
                .extract().path("id");
    }

    private static String status(String id) {
        return as(ApiKeysForTests.ADMIN_KEY).get("/api/v1/tasks/{id}", id).then().statusCode(200).extract().path("status");
    }

    private static RequestSpecification as(String key) {
        return given().auth().oauth2(key);
    }
}
