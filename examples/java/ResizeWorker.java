import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import io.taskfence.client.Job;
import io.taskfence.client.PermanentFailure;
import io.taskfence.client.TaskfenceClient;
import io.taskfence.client.Worker;

/**
 * A remote worker for the {@code resize} task type, in Java with the client of clients/java. Start the service in one
 * terminal ({@code scripts/dev.sh run}), then run this in another, from the repository's root:
 * {@code examples/java/run.sh --demo 5}. Settings as examples/python/worker.py reads them.
 */
public final class ResizeWorker {

    public static void main(String[] args) throws Exception {
        String url = setting("TASKFENCE_URL", "http://localhost:8080");
        String type = setting("TASKFENCE_TYPE", "resize");
        String name = setting("TASKFENCE_WORKER_NAME", "java-" + ProcessHandle.current().pid());
        String workerKey = setting("TASKFENCE_WORKER_KEY", null);
        if (workerKey == null) {
            System.err.println("no worker key: set TASKFENCE_WORKER_KEY, or start the service with scripts/dev.sh run");
            System.exit(2);
        }
        if (args.length == 2 && args[0].equals("--demo")) {
            int count = Integer.parseInt(args[1]);
            Thread.ofPlatform().daemon().start(() -> demo(url, setting("TASKFENCE_KEY", null), type, count));
        }
        Worker worker = new Worker(TaskfenceClient.of(url, workerKey), List.of(type), job -> resize(job, name),
                Integer.parseInt(setting("TASKFENCE_CONCURRENCY", "4")), Duration.ofSeconds(20), name,
                Duration.ofSeconds(20)).stopOnShutdown();
        System.out.println(name + " serving " + type + " tasks of " + url + "; Ctrl-C stops it");
        worker.run();
    }

    /** The work: a stand-in that halves an image's width; a real one sends the fencing token with its writes. */
    static Map<String, Object> resize(Job job, String name) throws Exception {
        JsonNode width = job.task().payload().path("width");
        if (!width.isInt() || width.asInt() <= 0) {
            throw new PermanentFailure("width must be a positive integer, not " + width);
        }
        job.progress(Map.of("done", 0, "total", 1, "message", "resizing to " + width.asInt() / 2)); // shown in the task
        Thread.sleep(100); // interrupted if the claim is superseded meanwhile
        return Map.of("width", width.asInt() / 2, "by", "java", "worker", name, "fencingToken", job.task().fencingToken());
    }

    private static void demo(String url, String key, String type, int count) {
        TaskfenceClient client = TaskfenceClient.of(url, key);
        try {
            for (int n = 0; n < count; n++) {
                JsonNode task = client.submitAndWait(type, Map.of("width", 640 + n), Duration.ofSeconds(60));
                System.out.println("task " + task.get("id").asText() + " " + task.get("status").asText() + ": "
                        + task.get("result"));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The environment's value, else target/trial-keys.env's (written by scripts/dev.sh run), else the default. */
    static String setting(String name, String otherwise) {
        String value = System.getenv(name);
        if (value != null && !value.isEmpty()) {
            return value;
        }
        Path keys = Path.of("target", "trial-keys.env");
        try {
            if (Files.exists(keys)) {
                for (String line : Files.readAllLines(keys)) {
                    if (line.startsWith(name + "=") && line.length() > name.length() + 1) {
                        return line.substring(name.length() + 1);
                    }
                }
            }
        } catch (IOException unreadable) {
            return otherwise;
        }
        return otherwise;
    }

    private ResizeWorker() {
    }
}
