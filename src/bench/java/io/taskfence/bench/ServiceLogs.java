package io.taskfence.bench;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.taskfence.testing.PackagedService;

/**
 * Prints a summary of the warnings and errors packaged replicas logged during a benchmark: a figure taken
 * while the service was failing means little, and its reader should see why. One line per distinct message,
 * with how often it came; the whole lines are in the replica's log.
 */
final class ServiceLogs {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int SHOWN = 10;

    private ServiceLogs() {
    }

    static void printProblems(List<PackagedService> replicas) {
        for (PackagedService replica : replicas) {
            Map<String, Integer> problems = new LinkedHashMap<>();
            try {
                // The packaged service logs one JSON object a line (prod profile).
                replica.output().lines().map(ServiceLogs::problem).filter(p -> !p.isEmpty())
                        .forEach(p -> problems.merge(p, 1, Integer::sum));
            } catch (IOException e) {
                System.out.printf("[bench] cannot read %s: %s%n", replica.log(), e);
                continue;
            }
            if (!problems.isEmpty()) {
                System.out.printf("[bench] %s logged %d warnings or errors (%s):%n", replica.id(),
                        problems.values().stream().mapToInt(Integer::intValue).sum(), replica.log());
                problems.entrySet().stream().limit(SHOWN)
                        .forEach(p -> System.out.printf("  %d × %s%n", p.getValue(), p.getKey()));
            }
        }
    }

    /** "LEVEL logger: message [exception: its message]" for a warning or an error, else "". */
    private static String problem(String line) {
        JsonNode entry;
        try {
            entry = JSON.readTree(line);
        } catch (JsonProcessingException notJson) {
            return "";
        }
        String level = entry.path("level").asText();
        if (!level.equals("WARN") && !level.equals("ERROR")) {
            return "";
        }
        JsonNode exception = entry.path("exception");
        return level + " " + entry.path("loggerName").asText() + ": " + entry.path("message").asText()
                + (exception.isMissingNode() ? ""
                        : " [" + exception.path("exceptionType").asText() + ": " + exception.path("message").asText() + "]");
    }
}
