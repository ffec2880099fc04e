package io.fairway.sim.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.function.BooleanSupplier;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/** The UI's pages as a test reads them, plus the API behind them (same origin) to check what the pages show. */
final class UiPages {
    /** Where every screenshot goes. */
    static final Path SHOTS = Path.of("target/ui-screenshots");
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HeadlessChromium browser;
    private final WebDriver driver;
    private final String base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    UiPages(HeadlessChromium browser, String baseUrl) {
        this.browser = browser;
        this.driver = browser.driver;
        this.base = baseUrl.endsWith("/") ? baseUrl : baseUrl + "/";
    }

    /** Loads the page at an address ("#/queues") and waits until that view has rendered. */
    void open(String hash, String view) {
        driver.get(base + hash);
        awaitView(view);
    }

    /** Waits until the page shows the view for the current address, rendered with its data. */
    void awaitView(String view) {
        waitUntil("the " + view + " view for " + driver.getCurrentUrl(), () -> Boolean.TRUE.equals(script(
                "const m = document.getElementById('main');"
                        + "return m.dataset.view === arguments[0] && m.dataset.route === window.location.hash"
                        + " && !m.hasAttribute('aria-busy');", view)));
    }

    WebElement find(String css) {
        waitUntil(css, () -> !driver.findElements(By.cssSelector(css)).isEmpty());
        return driver.findElement(By.cssSelector(css));
    }

    List<WebElement> findAll(String css) {
        return driver.findElements(By.cssSelector(css));
    }

    /** The rendered text of the first element matching css, read in one step (the page may redraw meanwhile). */
    String text(String css) {
        String[] text = new String[1];
        waitUntil(css, () -> {
            Object t = script("const e = document.querySelector(arguments[0]); return e ? e.innerText : null;", css);
            text[0] = t == null ? null : t.toString().trim();
            return t != null;
        });
        return text[0];
    }

    /** The rendered texts of every element matching css, read in one step. */
    List<String> texts(String css) {
        List<?> all = (List<?>) script("return [...document.querySelectorAll(arguments[0])].map(e => e.innerText.trim());", css);
        return all.stream().map(String::valueOf).toList();
    }

    void select(String css, String value) {
        new Select(find(css)).selectByValue(value);
    }

    /** The simulated time the time control shows, in milliseconds. */
    long simMillis() {
        return Long.parseLong(find("#sim-time").getAttribute("data-millis"));
    }

    /** Presses Tab (from the top of the page) until the element with this data-key has the focus. */
    void tabTo(String key) {
        ((JavascriptExecutor) driver).executeScript("document.activeElement && document.activeElement.blur();");
        for (int i = 0; i < 60; i++) {
            new Actions(driver).sendKeys(Keys.TAB).perform();
            if (key.equals(driver.switchTo().activeElement().getAttribute("data-key"))) {
                return;
            }
        }
        throw new AssertionError("60 presses of Tab never reached the link " + key);
    }

    void waitUntil(String what, BooleanSupplier condition) {
        new WebDriverWait(driver, WAIT).withMessage("waiting for " + what).until(d -> condition.getAsBoolean());
    }

    Object script(String js, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(js, args);
    }

    /** GET /api/v1{path}: what the page was built from. */
    JsonNode api(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + "api/v1" + path)).timeout(WAIT).GET().build(), path);
    }

    /** POST /api/v1{path}, as another client of the API would (the simulation's time control). */
    JsonNode post(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + "api/v1" + path)).timeout(WAIT)
                .POST(HttpRequest.BodyPublishers.noBody()).build(), path);
    }

    private JsonNode send(HttpRequest request, String path) {
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as("GET " + path + ": " + response.body()).isEqualTo(200);
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The page's accessibility problems, checked in the browser on what it shows now: every form control has a
     * label, every button and link a name, every table header cells, every chart image a text alternative, ids are
     * unique and every aria-labelledby points at one, and the view has exactly one h2 heading. Empty when none.
     */
    List<String> accessibilityProblems() {
        List<?> problems = (List<?>) script(
                "const out = [];"
                + "const name = (e) => (e.getAttribute('aria-label') || e.innerText || e.textContent || '').trim();"
                + "for (const c of document.querySelectorAll('main input, main select, main textarea, header input, header select')) {"
                + "  const labelled = c.closest('label') || c.getAttribute('aria-label') || (c.id && document.querySelector('label[for=\"' + c.id + '\"]'));"
                + "  if (!labelled) out.push('control without a label: ' + c.outerHTML.slice(0, 80)); }"
                + "for (const b of document.querySelectorAll('button, a[href]')) {"
                + "  if (!name(b)) out.push('button or link without a name: ' + b.outerHTML.slice(0, 80)); }"
                + "for (const t of document.querySelectorAll('main table')) {"
                + "  if (!t.querySelector('thead th[scope=col]')) out.push('table without header cells: ' + t.outerHTML.slice(0, 80)); }"
                + "for (const g of document.querySelectorAll('main svg')) {"
                + "  if (g.getAttribute('role') !== 'img' || !g.getAttribute('aria-label')) out.push('chart without a text alternative'); }"
                + "const ids = new Set();"
                + "for (const e of document.querySelectorAll('[id]')) { if (ids.has(e.id)) out.push('duplicate id ' + e.id); ids.add(e.id); }"
                + "for (const e of document.querySelectorAll('[aria-labelledby]')) {"
                + "  if (!document.getElementById(e.getAttribute('aria-labelledby'))) out.push('aria-labelledby to nothing: ' + e.getAttribute('aria-labelledby')); }"
                + "if (document.querySelectorAll('main h2').length !== 1) out.push('main has ' + document.querySelectorAll('main h2').length + ' h2 headings');"
                + "return out;");
        return problems.stream().map(String::valueOf).toList();
    }

    /** Requests the page made to the API so far (the browser's resource timing). */
    long apiRequests() {
        return ((Number) script("return performance.getEntriesByType('resource').filter(e => e.name.includes('/api/v1/')).length;")).longValue();
    }

    /**
     * The count of {@link #apiRequests()} once the page's own loading is over: the browser lists a request when it
     * completes, so requests the page made before it reported itself ready may still arrive; waits until the count
     * holds for a second.
     */
    long settledApiRequests() throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        long seen = apiRequests();
        while (System.nanoTime() < deadline) {
            Thread.sleep(1_000);
            long now = apiRequests();
            if (now == seen) {
                return now;
            }
            seen = now;
        }
        throw new AssertionError("the page kept requesting for " + WAIT.toSeconds() + " s (" + seen + " requests to the API)");
    }

    /** Saves a screenshot of the window under target/ui-screenshots/. */
    Path shot(String name) {
        return browser.screenshot(SHOTS.resolve(name));
    }

    /**
     * Loads a page afresh and answers the browser's own figure for it: milliseconds from navigation start to the
     * view being rendered with its data (the page's {@code fairway:VIEW-rendered} performance mark).
     */
    double loadMillis(String hash, String view) {
        driver.get("about:blank");
        open(hash, view);
        Object mark = script("const e = performance.getEntriesByName('fairway:' + arguments[0] + '-rendered');"
                + "return e.length ? e[0].startTime : -1;", view);
        return ((Number) mark).doubleValue();
    }

    /** Writes load times (and their median) to target/ui-load-times/NAME.txt, for docs/guides/ui.md. */
    void record(String name, String what, List<Double> millis) {
        List<Double> sorted = new ArrayList<>(millis);
        Collections.sort(sorted);
        double median = sorted.size() % 2 == 1 ? sorted.get(sorted.size() / 2)
                : (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
        String line = String.format(Locale.ROOT, "%s: median %.0f ms over %d loads %s%n", what, median, millis.size(),
                sorted.stream().map(m -> String.format(Locale.ROOT, "%.0f", m)).toList());
        try {
            Path file = Path.of("target/ui-load-times", name + ".txt");
            Files.createDirectories(file.getParent());
            Files.writeString(file, line, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
