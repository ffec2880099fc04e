package io.fairway.visibility;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A visibility server over the populated {@link Fixture}, started before each test (on a free port) and closed after
 * it, for the tests that read the API.
 */
abstract class ServedFixture {
    /** The scheduler and its jobs. */
    Fixture f;
    /** The server. */
    VisibilityServer server;
    /** The API's base URL ({@code http://host:port/api/v1}). */
    String api;

    /** @return the builder with this test's settings besides the port (none unless overridden) */
    VisibilityServer.Builder configure(VisibilityServer.Builder builder) {
        return builder;
    }

    @BeforeEach
    void start() throws Exception {
        f = new Fixture();
        server = configure(VisibilityServer.builder(f.scheduler).port(0)).build();
        f.populated();
        api = server.url() + "api/v1";
    }

    @AfterEach
    void stop() {
        server.close();
    }
}
