package io.taskfence.metrics;

import static io.restassured.RestAssured.given;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One read of {@code /q/metrics} (Prometheus text format), with the sums of the series a test names. */
final class Scrape {

    private static final Pattern SERIES = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private final String text;

    private Scrape(String text) {
        this.text = text;
    }

    /** Reads {@code /q/metrics} on the management interface whose root is {@code management}. */
    static Scrape now(URI management) {
        return new Scrape(given().get(management.resolve("/q/metrics")).then().statusCode(200).extract().asString());
    }

    /** The sum over the series of {@code name} whose labels include {@code labels} (0 if there are none). */
    double sum(String name, String... labels) {
        Map<String, String> wanted = new LinkedHashMap<>();
        for (int i = 0; i < labels.length; i += 2) {
            wanted.put(labels[i], labels[i + 1]);
        }
        double sum = 0;
        for (String line : text.split("\n")) {
            Matcher series = SERIES.matcher(line.strip());
            if (line.startsWith("#") || !series.matches() || !series.group(1).equals(name)) {
                continue;
            }
            Map<String, String> present = new LinkedHashMap<>();
            Matcher label = LABEL.matcher(series.group(2) == null ? "" : series.group(2));
            while (label.find()) {
                present.put(label.group(1), label.group(2));
            }
            if (present.entrySet().containsAll(wanted.entrySet())) {
                sum += Double.parseDouble(series.group(3));
            }
        }
        return sum;
    }

    /** Whether any series of {@code name} is there. */
    boolean has(String name) {
        return text.lines().anyMatch(line -> line.startsWith(name + "{") || line.startsWith(name + " "));
    }
}
