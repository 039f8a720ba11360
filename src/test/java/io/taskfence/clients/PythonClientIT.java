package io.taskfence.clients;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import io.taskfence.testing.ReplicaCluster;

/**
 * The Python client installed as users install it (pip, into a virtual environment), README's Python worker as
 * written run by it, and the client's own tests (clients/python/tests), run by Debian's python3 against a packaged
 * replica: submit and wait, a worker's results, failures, a cancel reaching the handler within a heartbeat, a drain
 * handing back what runs, superseded claims, and moving on from an unreachable replica.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PythonClientIT {

    /**
     * Where the installed client runs: an empty directory outside the source tree, so that `import taskfence` finds
     * only the install (not a stray taskfence.py of the shared temporary directory).
     */
    private Path elsewhere;
    private Path python;

    /**
     * `python3 -m venv` and `pip install ./clients/python`, offline as on a Debian machine without PyPI: setuptools
     * and wheel from Debian's own wheels, and none of this machine's pip settings (indexes, wheels of its own).
     */
    @BeforeAll
    void installTheClientIntoAVirtualEnvironment() throws Exception {
        elsewhere = Files.createTempDirectory("taskfence-python-client");
        Path venv = Path.of("target", "python-venv").toAbsolutePath();
        run(Path.of("."), RemoteTypeSettings.PYTHON, "-m", "venv", "--clear", venv.toString());
        run(Path.of("."), venv.resolve("bin/pip").toString(), "install", "--no-index",
                "--find-links", "/usr/share/python-wheels", "./clients/python");
        python = venv.resolve("bin/python");
    }

    @AfterAll
    void removeTheEmptyDirectory() throws Exception {
        Files.deleteIfExists(elsewhere);
    }

    @Test
    void theInstalledClientHasTheServicesVersion() throws Exception {
        String installed = run(elsewhere, python.toString(), "-c",
                "import importlib.metadata, taskfence; print(importlib.metadata.version('taskfence'), taskfence.__file__)");
        String expected = System.getProperty("project.version").replace("-SNAPSHOT", ".dev0"); // PEP 440's spelling
        assertTrue(installed.startsWith(expected + " " + python.getParent().getParent()), "pom.xml's version "
                + expected + ", imported from the virtual environment: " + installed);
    }

    /** README's five-line worker, taken from README.md as it is written, runs a task and stops on SIGTERM. */
    @Test
    void theReadmesWorkerWorksAsWritten() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        int section = readme.indexOf("## Your own worker in Python");
        int start = readme.indexOf("```python\n", section) + "```python\n".length();
        String worker = readme.substring(start, readme.indexOf("```", start));
        assertTrue(section > 0 && worker.lines().count() <= 5, "README's worker, at most five lines:\n" + worker);
        assertFalse(worker.contains("sys.path"), "README's worker imports the installed client:\n" + worker);
        Path script = Files.writeString(Files.createTempFile("readme-worker", ".py"), worker);
        try (ReplicaCluster cluster = ReplicaCluster.start(1, RemoteTypeSettings.ENVIRONMENT)) {
            Path output = Files.createTempFile("readme-worker", ".log");
            ProcessBuilder run = new ProcessBuilder(python.toString(), script.toString()).directory(elsewhere.toFile())
                    .redirectErrorStream(true).redirectOutput(output.toFile());
            run.environment().remove("PYTHONPATH");
            run.environment().put("TASKFENCE_URL", cluster.replicas().getFirst().uri("/").toString());
            run.environment().put("TASKFENCE_WORKER_KEY", RemoteTypeSettings.WORKER_KEY);
            Process process = run.start();
            try {
                String id = cluster.post(cluster.replicas().getFirst(), "/api/v1/tasks",
                        "{\"type\":\"resize\",\"payload\":{\"width\":640}}").body()
                        .replaceAll(".*\"id\":\"([0-9a-f-]{36})\".*", "$1");
                await("the task done by README's worker").atMost(Duration.ofSeconds(60)).until(() -> cluster
                        .get(cluster.replicas().getFirst(), "/api/v1/tasks/" + id).body().contains("\"status\":\"SUCCEEDED\""));
                assertTrue(cluster.get(cluster.replicas().getFirst(), "/api/v1/tasks/" + id).body()
                        .contains("\"result\":{\"width\":320}"));
                new ProcessBuilder("kill", "-TERM", Long.toString(process.pid())).start().waitFor();
                assertTrue(process.waitFor(40, TimeUnit.SECONDS), "README's worker ended on SIGTERM:\n"
                        + Files.readString(output));
            } finally {
                process.destroyForcibly();
            }
        }
    }

    @Test
    void thePythonClientsTestsPassAgainstTheService() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.start(1, RemoteTypeSettings.ENVIRONMENT)) {
            Path output = Files.createTempFile("python-client-tests", ".log");
            ProcessBuilder tests = new ProcessBuilder(RemoteTypeSettings.PYTHON, "-m", "unittest", "discover", "-v",
                    "-s", "tests", "-t", ".")
                    .directory(RemoteTypeSettings.PYTHON_CLIENT.toFile())
                    .redirectErrorStream(true).redirectOutput(output.toFile());
            tests.environment().put("TASKFENCE_URL", cluster.replicas().getFirst().uri("/").toString());
            tests.environment().put("TASKFENCE_SUBMIT_KEY", ReplicaCluster.ADMIN_KEY);
            tests.environment().put("TASKFENCE_WORKER_KEY", RemoteTypeSettings.WORKER_KEY);
            tests.environment().put("TASKFENCE_TYPE", RemoteTypeSettings.TYPE);
            tests.environment().put("TASKFENCE_OTHER_TYPE", RemoteTypeSettings.OTHER_TYPE);
            tests.environment().put("PYTHONDONTWRITEBYTECODE", "1");
            Process run = tests.start();
            boolean ended = run.waitFor(5, TimeUnit.MINUTES);
            if (!ended) {
                run.destroyForcibly();
            }
            String log = Files.readString(output);
            System.out.println(log);
            assertEquals(0, ended ? run.exitValue() : -1, "python3 -m unittest (clients/python/tests):\n" + log);
            assertFalse(log.contains("skipped"), "no test may be skipped against the service:\n" + log);
        }
    }

    /** Runs a command to its end (within 3 minutes, exit 0) and gives back what it printed. */
    private static String run(Path directory, String... command) throws Exception {
        Path output = Files.createTempFile("python-install", ".log");
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile())
                .redirectErrorStream(true).redirectOutput(output.toFile());
        builder.environment().keySet().removeIf(name -> name.startsWith("PIP_") || name.equals("PYTHONPATH"));
        builder.environment().put("PIP_CONFIG_FILE", "/dev/null"); // pip then reads no configuration file
        Process process = builder.start();
        boolean ended = process.waitFor(3, TimeUnit.MINUTES);
        if (!ended) {
            process.destroyForcibly();
        }
        String printed = Files.readString(output);
        assertEquals(0, ended ? process.exitValue() : -1, String.join(" ", command) + ":\n" + printed);
        return printed;
    }
}
