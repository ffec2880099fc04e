/**
 * Fairway's engine. Exports {@code io.fairway.core} only (the {@code Scheduler} facade, {@code Rounds},
 * {@code Snapshot} and the types they return); the round's stages stay inside, one package each:
 * {@code io.fairway.core.admission} (quota, flavors, cohorts), {@code .plan} (the context a policy sees and the
 * tentative plan), {@code .placement} (topology, GPU shapes, the placement search), {@code .preemption},
 * {@code .validation} and {@code .provisioning}.
 */
module io.fairway.core {
    requires transitive io.fairway.api;
    requires com.google.common;
    requires org.jgrapht.core;
    requires org.slf4j;

    exports io.fairway.core;

    uses io.fairway.api.spi.PolicyProvider;
}
