package io.taskfence.bench.peers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * The file scripts/dev.sh turns into the README's table, shared with Taskfence's own benchmarks: one
 * {@code key<TAB>value} line a figure, appended, in the format of the service's {@code BenchResults}.
 */
record ResultsFile(Path path) {

    void record(String key, double value) {
        String figure = String.format(Locale.ROOT, "%.3f", value);
        try {
            Path parent = path.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(path, key + "\t" + figure + System.lineSeparator(), StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to " + path, e);
        }
        System.out.printf("[bench] %s = %s%n", key, figure);
    }
}
