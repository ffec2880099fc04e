package io.fairway.visibility;

import io.fairway.core.Scheduler;
import java.util.function.Supplier;

/**
 * The scheduler an API request reads: a fixed one (simulator, embedding), or whatever an adapter holds now (the
 * controller rebuilds its engine on configuration changes and has none while standing by). The events ring is
 * moved to a new scheduler when it appears, so events and histories start over with it.
 */
final class SchedulerSource {
    private final Supplier<Scheduler> supplier;
    private final EventRing events;
    private Scheduler attached;

    SchedulerSource(Supplier<Scheduler> supplier, EventRing events) {
        this.supplier = supplier;
        this.events = events;
    }

    /** @return the scheduler now; 503 when there is none */
    synchronized Scheduler current() {
        Scheduler s = attach();
        if (s == null) {
            throw ApiException.status(503, "no scheduler", "this replica has no scheduler now (a standby replica, or one rebuilding "
                    + "after a configuration change); try again shortly");
        }
        return s;
    }

    /** Listens to the scheduler now, if any and not already. @return it, or null */
    synchronized Scheduler attach() {
        Scheduler s = supplier.get();
        if (s != null && s != attached) {
            detach();
            s.addListener(events);
            attached = s;
        }
        return s;
    }

    synchronized void detach() {
        if (attached != null) {
            attached.removeListener(events);
            attached = null;
        }
    }
}
