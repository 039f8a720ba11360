package io.taskfence.dashboard;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;

import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's chromium, headless, through Debian's chromedriver (packages chromium and chromium-driver; scripts/dev.sh
 * test installs them). Both binaries are named here so that Selenium Manager never looks for, or downloads, a
 * browser or a driver. The flags keep chromium from reaching out to the network, which is closed on CI.
 */
final class HeadlessChromium implements AutoCloseable {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path SCREENSHOTS = Path.of("target", "screenshots");

    final ChromeDriver driver;
    private final Path profile;

    private HeadlessChromium(ChromeDriver driver, Path profile) {
        this.driver = driver;
        this.profile = profile;
    }

    static HeadlessChromium start() {
        for (Path binary : new Path[] { CHROMIUM, CHROMEDRIVER }) {
            if (!Files.isExecutable(binary)) {
                throw new IllegalStateException(binary + " is missing: the dashboard's browser tests need Debian's chromium"
                        + " and chromium-driver (apt-get install chromium chromium-driver; scripts/dev.sh test does)");
            }
        }
        try {
            Path profile = Files.createTempDirectory("taskfence-chromium-");
            ChromeOptions options = new ChromeOptions();
            options.setBinary(CHROMIUM.toFile());
            options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", "--disable-extensions", "--window-size=1280,1100", "--user-data-dir=" + profile);
            ChromeDriverService service = new ChromeDriverService.Builder()
                    .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
            ChromeDriver driver = new ChromeDriver(service, options);
            driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30)).scriptTimeout(Duration.ofSeconds(10));
            return new HeadlessChromium(driver, profile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Saves what the browser shows as target/screenshots/{name}.png. */
    void screenshot(String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            File shot = driver.getScreenshotAs(OutputType.FILE);
            Files.copy(shot.toPath(), SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
            Files.deleteIfExists(shot.toPath());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            } catch (IOException e) {
                // a temporary directory left behind is harmless
            }
        }
    }
}
