package io.fairway.sim.ui;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;

/**
 * Debian's Chromium, headless, driven through its chromium-driver. Both paths are set explicitly (so Selenium Manager
 * never looks for, or downloads, a browser or a driver); {@code -Dfairway.chromium=...} / {@code FAIRWAY_CHROMIUM}
 * and {@code -Dfairway.chromedriver=...} / {@code FAIRWAY_CHROMEDRIVER} point elsewhere.
 *
 * <p>When either binary is missing the tests are skipped with a message naming it and the packages to install,
 * unless {@code FAIRWAY_REQUIRE_BROWSER=1} (or {@code -Dfairway.requireBrowser=true}) is set, as {@code .ci/run}
 * does: then they fail.
 */
final class HeadlessChromium implements AutoCloseable {
    /** The window of the laptop screen the UI is laid out for. */
    static final int WIDTH = 1366;
    static final int HEIGHT = 768;

    final ChromeDriver driver;

    private HeadlessChromium(ChromeDriver driver) {
        this.driver = driver;
    }

    /**
     * Whether this machine has the browser and its driver: empty when it has; otherwise why not, printed on the
     * console, for the caller to skip its tests with (an assumption in {@code @BeforeEach}, so that each test is
     * reported as skipped with the message). Fails instead when a browser is required (CI).
     */
    static Optional<String> missingHere() {
        Optional<String> missing = unavailable(chromium(), chromedriver());
        if (missing.isPresent()) {
            if (browserRequired(System.getenv("FAIRWAY_REQUIRE_BROWSER"), Boolean.getBoolean("fairway.requireBrowser"))) {
                fail(missing.get() + " (FAIRWAY_REQUIRE_BROWSER is set, so this fails rather than skips)");
            }
            // On the console, not in target/test.log where the tests' logging goes: a developer must see it.
            System.err.println("SKIPPED: the UI's browser tests. " + missing.get());
        }
        return missing;
    }

    /** Starts the browser (after {@link #missingHere} found it). */
    static HeadlessChromium start() {
        Path chromium = chromium();
        Path driverBinary = chromedriver();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-extensions", "--no-first-run", "--hide-scrollbars", "--force-device-scale-factor=1",
                "--window-size=" + WIDTH + "," + HEIGHT);
        // The browser's console (script errors, Content-Security-Policy violations), read by severeConsoleMessages().
        options.setCapability("goog:loggingPrefs", java.util.Map.of("browser", "ALL"));
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(driverBinary.toFile())
                .usingAnyFreePort()
                .build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(20));
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        // --window-size is the outer window: grow it so that the page itself gets the whole laptop screen.
        List<?> inner = (List<?>) driver.executeScript("return [window.innerWidth, window.innerHeight];");
        Dimension outer = driver.manage().window().getSize();
        driver.manage().window().setSize(new Dimension(outer.getWidth() + WIDTH - ((Number) inner.get(0)).intValue(),
                outer.getHeight() + HEIGHT - ((Number) inner.get(1)).intValue()));
        return new HeadlessChromium(driver);
    }

    /** Saves what the window shows as a PNG. */
    Path screenshot(Path file) {
        try {
            Files.createDirectories(file.getParent());
            File png = driver.getScreenshotAs(OutputType.FILE);
            Files.copy(png.toPath(), file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot save the screenshot " + file, e);
        }
    }

    /** The console's errors since the last call: script errors, failed loads, Content-Security-Policy violations. */
    List<String> severeConsoleMessages() {
        return driver.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue())
                .map(LogEntry::getMessage)
                .toList();
    }

    /** Why the browser cannot be started (naming each missing binary and the packages), or empty. */
    static Optional<String> unavailable(Path chromium, Path driverBinary) {
        List<String> missing = new ArrayList<>();
        if (!Files.isExecutable(chromium)) {
            missing.add("the browser " + chromium + " (Debian package chromium; or set FAIRWAY_CHROMIUM)");
        }
        if (!Files.isExecutable(driverBinary)) {
            missing.add("the driver " + driverBinary + " (Debian package chromium-driver; or set FAIRWAY_CHROMEDRIVER)");
        }
        return missing.isEmpty() ? Optional.empty() : Optional.of("No headless browser for the UI test: missing "
                + String.join(" and ", missing) + ". Install them with: sudo apt-get install chromium chromium-driver");
    }

    /** True when a missing browser must fail the test: FAIRWAY_REQUIRE_BROWSER set (not 0/false) or the property. */
    static boolean browserRequired(String env, boolean property) {
        return property || (env != null && !env.isBlank() && !env.equals("0") && !env.equalsIgnoreCase("false"));
    }

    private static Path chromium() {
        return binary("fairway.chromium", "FAIRWAY_CHROMIUM", "/usr/bin/chromium");
    }

    private static Path chromedriver() {
        return binary("fairway.chromedriver", "FAIRWAY_CHROMEDRIVER", "/usr/bin/chromedriver");
    }

    private static Path binary(String property, String env, String fallback) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            value = System.getenv(env);
        }
        return Path.of(value == null || value.isBlank() ? fallback : value);
    }

    @Override
    public void close() {
        driver.quit();
    }
}
