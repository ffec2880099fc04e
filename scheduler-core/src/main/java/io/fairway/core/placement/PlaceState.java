package io.fairway.core.placement;

import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.job.PodSet;
import io.fairway.core.snapshot.PlacementStrategy;
import java.util.List;

/** The working state of one pod set's placement: what is placed so far, and savepoints to roll back to. */
final class PlaceState {
    final PodSet ps;
    final int m;
    final int g;
    final long[] req;
    final NodeFilter filter;
    final boolean nvlink;
    final List<MemberPlacement> out;
    final List<Placer.Taken> taken;
    int placed;
    private final CapacityPlan cap;
    private final boolean firstFit;

    /** A point {@link #restore} rolls the capacity and the lists back to. */
    record Savepoint(int capMark, int out, int taken, int placed) {
    }

    PlaceState(CapacityPlan cap, PlacementStrategy strategy, PodSet ps, int m, int g, long[] req, NodeFilter filter, boolean nvlink,
               List<MemberPlacement> out, List<Placer.Taken> taken) {
        this.cap = cap;
        this.firstFit = strategy == PlacementStrategy.FIRST_FIT;
        this.ps = ps;
        this.m = m;
        this.g = g;
        this.req = req;
        this.filter = filter;
        this.nvlink = nvlink;
        this.out = out;
        this.taken = taken;
    }

    int remaining() {
        return m - placed;
    }

    /** The domain every member must be in (a whole job in one domain of a level), or none. */
    private int[] pinDomainOf;
    private int pinDomain = -1;

    void pin(int[] domainOf, int domain) {
        this.pinDomainOf = domainOf;
        this.pinDomain = domain;
    }

    boolean ok(int node) {
        return cap.schedulable[node] && filter.matches(cap.nodes[node]) && (pinDomain < 0 || pinDomainOf[node] == pinDomain);
    }

    Savepoint save() {
        return new Savepoint(cap.mark(), out.size(), taken.size(), placed);
    }

    void restore(Savepoint sp) {
        cap.rollbackTo(sp.capMark());
        out.subList(sp.out(), out.size()).clear();
        taken.subList(sp.taken(), taken.size()).clear();
        placed = sp.placed();
    }

    /** Places k members on the node, choosing their GPUs together. */
    void put(int node, int k) {
        long mask = 0;
        if (g > 0) {
            GpuShape shape = cap.shapes[node];
            mask = firstFit
                    ? shape.chooseFirstFit(cap.freeGpuMask[node], k * g, nvlink)
                    : shape.choose(cap.freeGpuMask[node], k * g, nvlink);
        }
        put(node, k, mask);
    }

    void put(int node, int k, long mask) {
        GpuShape shape = cap.shapes[node];
        if (g > 0 && Long.bitCount(mask) != k * g) {
            throw new IllegalStateException("no set of " + k * g + " GPUs on " + cap.nodes[node].name());
        }
        long[] total = new long[req.length];
        for (int r = 0; r < req.length; r++) {
            total[r] = req[r] * k;
        }
        cap.take(node, total, mask);
        taken.add(new Placer.Taken(node, total, mask));
        long left = mask;
        for (int i = 0; i < k; i++) {
            long sub = 0;
            if (g > 0) {
                sub = firstFit ? shape.chooseFirstFit(left, g, false) : shape.choose(left, g, false);
            }
            left &= ~sub;
            out.add(new MemberPlacement(ps.name(), placed++, cap.nodes[node].name(), shape.indexes(sub)));
        }
    }
}
