/**
 * Fairway's public model, decisions, events and policy SPI. Depends on the JDK alone.
 */
module io.fairway.api {
    exports io.fairway.api;
    exports io.fairway.api.model;
    exports io.fairway.api.job;
    exports io.fairway.api.decision;
    exports io.fairway.api.event;
    exports io.fairway.api.spi;

    uses io.fairway.api.spi.PolicyProvider;
}
