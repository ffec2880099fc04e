/**
 * Queue-order policies: StrictFIFO, BestEffortFIFO and Priority, and the {@link io.fairway.policies.fifo.OrderedPolicy}
 * they share.
 */
package io.fairway.policies.fifo;
