package io.fairway.k8s;

import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobStatus;
import io.fairway.api.spi.Attempt;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wraps the configured policy so jobs that are already admitted on the cluster are re-admitted at exactly their
 * recorded placement, before the policy plans anything, and are never offered to the policy. This is how a
 * restarted (or re-elected, or reconfigured) adapter rebuilds the engine from the API server without admitting any
 * job twice: the engine's quota and capacity book-keeping sees them again as they are.
 */
public final class RestoringPolicy implements SchedulingPolicy {
    private static final Logger LOG = LoggerFactory.getLogger(RestoringPolicy.class);

    private final SchedulingPolicy delegate;
    private final Map<String, Placement> pins = new LinkedHashMap<>();

    /** @param delegate the configured policy */
    public RestoringPolicy(SchedulingPolicy delegate) {
        this.delegate = delegate;
    }

    /**
     * Pins a pending job to its recorded placement: the next round re-admits it there.
     *
     * @param jobId the job
     * @param placement where its members run
     */
    public synchronized void pin(String jobId, Placement placement) {
        pins.put(jobId, placement);
    }

    /** @param jobId a job no longer to restore */
    public synchronized void unpin(String jobId) {
        pins.remove(jobId);
    }

    /** @return the jobs still to restore */
    public synchronized Set<String> pinned() {
        return Set.copyOf(pins.keySet());
    }

    /** @param jobId a job @return its pinned placement, or null */
    public synchronized Placement pinOf(String jobId) {
        return pins.get(jobId);
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public void plan(PolicyContext ctx) {
        Map<String, Placement> todo;
        synchronized (this) {
            todo = new LinkedHashMap<>(pins);
        }
        if (todo.isEmpty()) {
            delegate.plan(ctx);
            return;
        }
        for (JobStatus j : ctx.pending()) {
            Placement p = todo.get(j.id());
            if (p != null) {
                Attempt a = ctx.tryAdmit(j, p);
                if (!a.admitted()) {
                    LOG.warn("cannot restore the admission of {} on {}: {}", j.id(), p.nodes(), a.reason().message());
                }
            }
        }
        delegate.plan(hiding(ctx, todo.keySet()));
    }

    /** A view of the context whose pending lists and groups leave out the given jobs; every other call goes to the context. */
    private static PolicyContext hiding(PolicyContext ctx, Set<String> hidden) {
        InvocationHandler h = (proxy, method, args) -> {
            Object r = invoke(ctx, method, args);
            if (method.getName().equals("pending") && r instanceof List<?> l) {
                return l.stream().filter(o -> !(o instanceof JobStatus js && hidden.contains(js.id()))).toList();
            }
            if (method.getName().equals("pendingGroups") && r instanceof List<?> groups && !hidden.isEmpty()) {
                List<io.fairway.api.spi.PendingGroup> out = new java.util.ArrayList<>();
                for (Object o : groups) {
                    io.fairway.api.spi.PendingGroup g = (io.fairway.api.spi.PendingGroup) o;
                    List<JobStatus> kept = g.jobs().stream().filter(j -> !hidden.contains(j.id())).toList();
                    if (kept.size() == g.jobs().size()) {
                        out.add(g);
                    } else if (!kept.isEmpty()) {
                        out.add(new io.fairway.api.spi.PendingGroup() {
                            @Override
                            public String clusterQueue() {
                                return g.clusterQueue();
                            }

                            @Override
                            public List<JobStatus> jobs() {
                                return kept;
                            }
                        });
                    }
                }
                return out;
            }
            return r;
        };
        return (PolicyContext) Proxy.newProxyInstance(PolicyContext.class.getClassLoader(), new Class<?>[] {PolicyContext.class}, h);
    }

    private static Object invoke(Object target, Method m, Object[] args) throws Throwable {
        if (m.getDeclaringClass() == Object.class) {
            return switch (m.getName()) {
                case "toString" -> "hiding(" + target + ")";
                case "hashCode" -> System.identityHashCode(target);
                case "equals" -> args[0] == target;
                default -> m.invoke(target, args);
            };
        }
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
