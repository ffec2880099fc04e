/**
 * Fairway's engine. Exports {@code io.fairway.core} (the {@code Scheduler} facade, {@code Rounds} and the types
 * they return) and {@code io.fairway.core.snapshot} (a round's input: the {@code Snapshot} and what it is made of,
 * a leaf that imports no other package of the engine); the round's stages stay inside, one package each:
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
    exports io.fairway.core.snapshot;

    uses io.fairway.api.spi.PolicyProvider;
}
