package io.taskfence.bench.peers;

import java.nio.file.Path;
import java.util.List;

/**
 * The command line scripts/dev.sh passes: {@code --tasks N --max-drains D --seconds S --results PATH}, the
 * same figures Taskfence's own benchmarks get as {@code -Dbench.tasks}, {@code -Dbench.max-drains} and
 * {@code -Dbench.seconds}, so the two sides of the table measure the same amount of work by the same rule.
 *
 * @param tasks   how many executions the drain pre-loads
 * @param maxDrains the most drains made while waiting for two in a row within 5 % of each other
 * @param seconds how long each lock run is counted, after its warm-up
 * @param results the {@code key<TAB>value} file the figures are appended to
 */
record Options(int tasks, int maxDrains, int seconds, Path results) {

    static final String USAGE = "usage: Peers --tasks N --max-drains D --seconds S --results PATH";

    Options {
        if (tasks < 1) {
            throw new IllegalArgumentException("--tasks must be at least 1, not " + tasks);
        }
        if (maxDrains < 2) {
            throw new IllegalArgumentException("--max-drains must be at least 2, not " + maxDrains);
        }
        if (seconds < 1) {
            throw new IllegalArgumentException("--seconds must be at least 1, not " + seconds);
        }
    }

    static Options parse(List<String> args) {
        Integer tasks = null;
        Integer maxDrains = null;
        Integer seconds = null;
        Path results = null;
        for (int i = 0; i < args.size(); i += 2) {
            String name = args.get(i);
            if (i + 1 >= args.size()) {
                throw new IllegalArgumentException(name + " needs a value");
            }
            String value = args.get(i + 1);
            switch (name) {
                case "--tasks" -> tasks = integer(name, value);
                case "--max-drains" -> maxDrains = integer(name, value);
                case "--seconds" -> seconds = integer(name, value);
                case "--results" -> results = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + name);
            }
        }
        if (tasks == null || maxDrains == null || seconds == null || results == null) {
            throw new IllegalArgumentException("--tasks, --max-drains, --seconds and --results are all required");
        }
        return new Options(tasks, maxDrains, seconds, results);
    }

    private static int integer(String name, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " takes a whole number, not '" + value + "'");
        }
    }
}
