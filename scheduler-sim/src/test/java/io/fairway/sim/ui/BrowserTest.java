package io.fairway.sim.ui;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.Scheduler;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The fixture of the UI's browser tests: one headless browser for a test class, started before the class's own
 * {@code @BeforeAll} (which serves the UI and hands it to {@link #serve}), every test skipped (or failed, where the
 * browser is required) on a machine without the browser, and the server and the browser closed after the class.
 */
abstract class BrowserTest {
    static HeadlessChromium browser;
    static UiPages pages;
    private static AutoCloseable served;
    private static Optional<String> missing = Optional.empty();

    @BeforeAll
    static void startBrowser() {
        missing = HeadlessChromium.missingHere();
        if (missing.isEmpty()) {
            browser = HeadlessChromium.start();
        }
    }

    /** @return whether this machine has no browser (a class's own {@code @BeforeAll} then serves nothing) */
    static boolean noBrowser() {
        return missing.isPresent();
    }

    /**
     * Opens the pages under a server's URL.
     *
     * @param url the server's base URL
     * @param server the server, closed after the class
     */
    static void serve(String url, AutoCloseable server) {
        served = server;
        pages = new UiPages(browser, url);
    }

    @BeforeEach
    void needsTheBrowser() {
        assumeTrue(missing.isEmpty(), () -> missing.get());
    }

    @AfterAll
    static void stop() throws Exception {
        if (served != null) {
            served.close();
            served = null;
        }
        if (browser != null) {
            browser.close();
            browser = null;
        }
        pages = null;
    }

    /**
     * @return a scheduler builder under best-effort-fifo with the cohort research of team-a and team-b (64 CPUs and 8
     *     GPUs each; local queue gpu in namespaces of their names) on an H100 (NVSwitch) and a V100 (hybrid cube mesh)
     *     node of 8 GPUs each, whose decisions go nowhere
     */
    static Scheduler.Builder twoTeams() {
        return Scheduler.builder()
                .policy("best-effort-fifo")
                .flavor(ResourceFlavor.of("default"))
                .cohort(Cohort.of("research", null))
                .clusterQueue(ClusterQueue.builder("team-a").cohort("research")
                        .quota("default", Resources.builder().cpu(64).gpus(8).build()).build())
                .clusterQueue(ClusterQueue.builder("team-b").cohort("research")
                        .quota("default", Resources.builder().cpu(64).gpus(8).build()).build())
                .localQueue(new LocalQueue("team-a", "gpu", "team-a"))
                .localQueue(new LocalQueue("team-b", "gpu", "team-b"))
                .node(node("node-1", GpuTopology.nvSwitch8("H100")))
                .node(node("node-2", GpuTopology.hybridCubeMesh8("V100")))
                .actuator(decisions -> { });
    }

    private static Node node(String name, GpuTopology gpus) {
        return Node.builder(name).capacity(Resources.builder().cpu(96).memoryGiB(1024).build()).gpus(gpus).build();
    }
}
