package io.taskfence.dashboard;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.testing.TestServers;

/** The dashboard's files are served on the API's port without a key, from this service alone; the API still needs one. */
@QuarkusTest
@TestServers
class DashboardServedTest {

    private static final Path FILES = Path.of("src/main/resources/META-INF/resources/dashboard");

    @Test
    void theRootAndTheBarePathLeadToTheDashboard() {
        for (String path : new String[] { "/", "/dashboard" }) {
            given().redirects().follow(false).get(path).then().statusCode(302)
                    .header("Location", endsWith("/dashboard/"));
        }
    }

    @Test
    void everyFileIsServedWithoutAKeyAndTheApiStillWantsOne() throws IOException {
        given().get("/dashboard/").then().statusCode(200).contentType(startsWith("text/html"))
                .body(containsString("<script type=\"module\" src=\"app.js\"></script>"))
                .header("Content-Security-Policy", containsString("default-src 'none'"))
                .header("Content-Security-Policy", containsString("connect-src 'self'"))
                .header("X-Content-Type-Options", is("nosniff"));
        for (Path file : files()) {
            String name = file.getFileName().toString();
            String type = name.endsWith(".js") ? "text/javascript" : name.endsWith(".css") ? "text/css" : "text/html";
            given().get("/dashboard/" + name).then().statusCode(200).contentType(startsWith(type));
        }
        given().get("/api/v1/stats").then().statusCode(401).contentType("application/problem+json");
        given().get("/api/v1/tasks").then().statusCode(401).contentType("application/problem+json");
    }

    /** Nothing is fetched from elsewhere: every import, script, stylesheet and call names a file or path of its own. */
    @Test
    void theFilesLoadNothingFromAnotherOrigin() throws IOException {
        Pattern reference = Pattern.compile("(?:from\\s+|import\\(|src=|href=|url\\(|@import\\s+|fetch\\()\\s*[\"'`]?([^\"'`)\\s]*)");
        int seen = 0;
        for (Path file : files()) {
            Matcher found = reference.matcher(Files.readString(file));
            while (found.find()) {
                String target = found.group(1);
                seen++;
                assertFalse(target.contains("//") || target.matches("(?i)[a-z]+:.*"), file + " refers to " + target);
            }
        }
        assertTrue(seen > 10, "the check read the files' references (" + seen + ")");
    }

    private static List<Path> files() throws IOException {
        try (Stream<Path> files = Files.list(FILES)) {
            List<Path> all = files.sorted().toList();
            assertEquals(true, all.stream().anyMatch(file -> file.endsWith("index.html")), "index.html in " + FILES);
            return all;
        }
    }
}
