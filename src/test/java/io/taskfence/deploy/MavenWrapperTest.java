package io.taskfence.deploy;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

import org.junit.jupiter.api.Test;

/**
 * {@code ./mvnw} downloads Maven on a fresh machine and runs it with the build's rights: it must refuse a download
 * that is not the distribution it names ({@code distributionSha256Sum}, which the wrapper script checks; a wrong
 * sum stops it with "Failed to validate Maven distribution SHA-256"). The sum was taken of the zip whose SHA-512
 * matched the {@code .sha512} Apache publishes beside it on Maven Central; a version change needs both again.
 */
class MavenWrapperTest {

    @Test
    void theWrapperChecksTheMavenItDownloads() throws IOException {
        Properties wrapper = new Properties();
        try (Reader in = Files.newBufferedReader(Path.of(".mvn/wrapper/maven-wrapper.properties"))) {
            wrapper.load(in);
        }
        String url = wrapper.getProperty("distributionUrl", "");
        assertTrue(url.startsWith("https://repo.maven.apache.org/maven2/"), "Maven comes from elsewhere: " + url);
        assertTrue(wrapper.getProperty("distributionSha256Sum", "").matches("[0-9a-f]{64}"),
                "no SHA-256 of " + url + ": the wrapper would run whatever it downloaded");
    }
}
