/**
 * Fairway's engine. Exports {@code io.fairway.core} only; the implementation stays in
 * {@code io.fairway.core.internal}.
 */
module io.fairway.core {
    requires transitive io.fairway.api;
    requires com.google.common;
    requires org.jgrapht.core;
    requires org.slf4j;

    exports io.fairway.core;

    uses io.fairway.api.spi.PolicyProvider;
}
