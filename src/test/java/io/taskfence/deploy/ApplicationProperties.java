package io.taskfence.deploy;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

/** The settings packaged with the application (src/main/resources/application.properties). */
record ApplicationProperties(Properties properties) {

    /** Quarkus's HTTP port when nothing sets {@code quarkus.http.port}. */
    static final int QUARKUS_DEFAULT_HTTP_PORT = 8080;

    static ApplicationProperties read(Path file) {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new ApplicationProperties(properties);
    }

    /**
     * The port the application listens on in a container with this environment: an environment variable
     * overrides application.properties, which overrides Quarkus's default.
     */
    int httpPort(Map<String, String> environment) {
        String port = environment.getOrDefault("QUARKUS_HTTP_PORT",
                properties.getProperty("quarkus.http.port", String.valueOf(QUARKUS_DEFAULT_HTTP_PORT)));
        return Integer.parseInt(port.trim());
    }
}
