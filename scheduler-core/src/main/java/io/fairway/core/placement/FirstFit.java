package io.fairway.core.placement;

import java.util.BitSet;

/** {@link io.fairway.core.snapshot.PlacementStrategy#FIRST_FIT}: the topology-oblivious baseline placement. */
final class FirstFit {
    private FirstFit() {
    }

    /** Nodes in order, as many members as fit on each, lowest GPU indexes; required constraints hold. */
    static boolean place(CapacityPlan cap, CapacityPlan.ClusterIndex ci, PlaceState st, int top) {
        int host = ci.levels.size();
        if (top == host) {
            for (int n = ci.members.nextSetBit(0); n >= 0; n = ci.members.nextSetBit(n + 1)) {
                if (st.ok(n) && cap.membersFit(n, st.req, st.g) >= st.m
                        && (st.g == 0 || cap.shapes[n].chooseFirstFit(cap.freeGpuMask[n], st.m * st.g, st.nvlink) != 0)) {
                    st.put(n, st.m);
                    return true;
                }
            }
            return false;
        }
        if (top >= 0) {
            for (int[] nodes : ci.domainNodes[top]) {
                PlaceState.Savepoint sp = st.save();
                if (fillNodes(cap, nodes, st) == st.m) {
                    return true;
                }
                st.restore(sp);
            }
            return false;
        }
        PlaceState.Savepoint sp = st.save();
        int want = st.remaining();
        int placed = 0;
        BitSet full = ci.byFreeGpus[0];
        int n = ci.members.nextSetBit(0);
        while (n >= 0 && placed < want) {
            if (st.g > 0) {
                n = full.nextClearBit(n); // skip nodes without a free GPU
                if (n >= cap.nodes.length) {
                    break;
                }
                if (!ci.members.get(n)) {
                    n = ci.members.nextSetBit(n + 1);
                    continue;
                }
            }
            if (st.ok(n)) {
                int k = Math.min(want - placed, cap.membersFit(n, st.req, st.g));
                if (k > 0) {
                    st.put(n, k);
                    placed += k;
                }
            }
            n = ci.members.nextSetBit(n + 1);
        }
        if (placed == want) {
            return true;
        }
        st.restore(sp);
        return false;
    }

    private static int fillNodes(CapacityPlan cap, int[] nodes, PlaceState st) {
        for (int n : nodes) {
            if (st.remaining() == 0) {
                break;
            }
            if (st.ok(n)) {
                int k = Math.min(st.remaining(), cap.membersFit(n, st.req, st.g));
                if (k > 0) {
                    st.put(n, k);
                }
            }
        }
        return st.placed;
    }
}
