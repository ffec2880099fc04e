package io.fairway.api.event;

/**
 * Receives scheduler events. Called on the thread that caused the event; keep it quick and do not call back
 * into the scheduler's mutating methods from it.
 *
 * <pre>{@code
 * scheduler.addListener(e -> log.info("{} {} {}", e.jobId(), e.type(), e.reason()));
 * }</pre>
 */
@FunctionalInterface
public interface SchedulerListener {
    /** @param event what happened */
    void onEvent(SchedulerEvent event);
}
