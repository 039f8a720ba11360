package io.taskfence.bench;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * wrk, the HTTP load generator (Debian's package; {@code scripts/dev.sh bench} installs it), run with the
 * settings every REST figure uses: 2 threads, 32 connections, each connection one request at a time.
 */
final class Wrk {

    static final int THREADS = 2;
    static final int CONNECTIONS = 32;
    /** wrk's own default (2 s) would count a slow answer on a busy machine as an error. */
    private static final String TIMEOUT = "10s";

    private static final Pattern REQUESTS = Pattern.compile("(\\d+) requests in ");
    private static final Pattern RATE = Pattern.compile("Requests/sec:\\s+([0-9.]+)");
    private static final Pattern ERROR_ANSWERS = Pattern.compile("Non-2xx or 3xx responses: (\\d+)");
    private static final Pattern SOCKET_ERRORS = Pattern.compile(
            "Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)");

    /**
     * What wrk reported. {@code errorAnswers} are the answers of status 400 and above (wrk's "Non-2xx or 3xx
     * responses"); {@code socketErrors} are connects, reads and writes that failed, and requests that timed out.
     */
    record Report(long requests, double requestsPerSecond, long errorAnswers, long socketErrors, String output) {
    }

    private Wrk() {
    }

    /** Loads {@code target} for {@code duration}; with a {@code script}, wrk's Lua script shapes the request. */
    static Report run(URI target, Duration duration, Path script, String... headers)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("wrk", "-t" + THREADS, "-c" + CONNECTIONS,
                "-d" + Math.max(1, duration.toSeconds()) + "s", "--timeout", TIMEOUT));
        if (script != null) {
            command.addAll(List.of("-s", script.toString()));
        }
        for (String header : headers) {
            command.addAll(List.of("-H", header));
        }
        command.add(target.toString());
        Process wrk;
        try {
            wrk = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException missing) {
            throw new IOException("cannot run wrk (apt-get install -y wrk; scripts/dev.sh bench installs it)", missing);
        }
        String output = new String(wrk.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!wrk.waitFor(duration.toSeconds() + 60, TimeUnit.SECONDS) || wrk.exitValue() != 0) {
            wrk.destroyForcibly();
            throw new IllegalStateException("wrk failed: " + String.join(" ", command) + "\n" + output);
        }
        long socketErrors = 0;
        Matcher errors = SOCKET_ERRORS.matcher(output);
        if (errors.find()) {
            for (int group = 1; group <= 4; group++) {
                socketErrors += Long.parseLong(errors.group(group));
            }
        }
        return new Report(Long.parseLong(find(REQUESTS, output, null)), Double.parseDouble(find(RATE, output, null)),
                Long.parseLong(find(ERROR_ANSWERS, output, "0")), socketErrors, output);
    }

    /** The first group of {@code pattern} in wrk's output; {@code absent} if it is not there, or a failure if null. */
    private static String find(Pattern pattern, String output, String absent) {
        Matcher found = pattern.matcher(output);
        if (found.find()) {
            return found.group(1);
        }
        if (absent == null) {
            throw new IllegalStateException("wrk's report has no match for /" + pattern + "/:\n" + output);
        }
        return absent;
    }
}
