package io.fairway.sim;

import io.fairway.api.decision.Provision;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Nodes coming and going in a simulation: Provision decisions whose nodes join after the pool's provisioning delay,
 * Deprovision decisions, and spot interruption notices and interruptions.
 */
final class NodeEvents {
    private static final Logger LOG = LoggerFactory.getLogger(SimulationRun.class);

    /** Nodes of one Provision decision, coming up. */
    record NodesUp(io.fairway.api.model.NodePool pool, io.fairway.api.model.InstanceType type, List<String> names, String rack,
                           long requestedAt) {
    }

    private final SimulationRun run;
    private final List<String> deprovisioned = new ArrayList<>();
    /** The node whose spot interruption is being handled, or null: preemptions now are interruption losses. */
    private String interrupting;

    /** @param run the simulation whose nodes these are */
    NodeEvents(SimulationRun run) {
        this.run = run;
    }

    /** @return the node whose spot interruption is being handled, or null */
    String interrupting() {
        return interrupting;
    }

    /** @param node a node the engine deprovisioned: it goes after the round */
    void deprovisioned(String node) {
        deprovisioned.add(node);
    }

    /** A Provision decision: the nodes join after the pool's provisioning delay, sharing one fresh rack. */
    void provision(Provision p) {
        SimNodePool sp = run.infra.pool(p.nodePool());
        io.fairway.api.model.InstanceType type = sp == null ? null : sp.pool().instanceType(p.instanceType());
        if (type == null) {
            LOG.warn("t={}s: Provision from unknown node pool {} / instance type {}", run.now / 1000.0, p.nodePool(), p.instanceType());
            return;
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < p.count(); i++) {
            names.add(run.infra.reserveName(p.nodePool()));
        }
        String rack = run.infra.freshRack(p.nodePool());
        run.record("Provision", null, p.count() + " x " + p.instanceType() + " in " + p.nodePool() + " (" + String.join(", ", names) + "): "
                + p.reason());
        NodesUp up = new NodesUp(sp.pool(), type, names, rack, run.now);
        if (!run.faults().any()) {
            run.push(run.now + sp.pool().provisioningDelayMillis(), SimulationRun.NODES_UP, up, 0);
            return;
        }
        run.actuator().provision(sp, up);
    }

    void nodesUp(NodesUp u) {
        SimNodePool sp = run.infra.pool(u.pool().name());
        for (String name : u.names()) {
            io.fairway.api.model.Node n = run.infra.nodeUp(u.pool(), u.type(), name, u.rack(), u.requestedAt());
            run.scheduler.clusters().addNode(n);
            run.record("NodeUp", null, name + " (" + u.type().name() + ", " + u.rack() + ")");
            long at = run.infra.interruptionAt(sp, u.type(), name, run.now);
            if (at > 0) {
                long notice = Math.max(run.now, at - Math.round(sp.noticeSeconds() * 1000));
                run.push(notice, SimulationRun.SPOT_NOTICE, name, 0);
                run.push(at, SimulationRun.SPOT_INTERRUPTION, name, 0);
            }
        }
    }

    void removeDeprovisioned() {
        boolean removed = false;
        for (String node : deprovisioned) {
            if (run.infra.present(node)) {
                run.scheduler.clusters().removeNode(node);
                run.infra.nodeGone(node, run.now);
                run.record("NodeGone", null, node + " (deprovisioned)");
                removed = true;
            }
        }
        deprovisioned.clear();
        if (removed && run.pending() > 0 && run.wakes.add(run.now)) {
            run.push(run.now, SimulationRun.WAKE, null, 0); // the pool's limits have room again: waiting gangs may get nodes now
        }
    }

    /** A spot interruption notice: the node's jobs migrate (from their last checkpoint) while it still runs. */
    boolean spotNotice(String node) {
        if (!run.infra.present(node)) {
            return false;
        }
        run.infra.interrupted();
        run.record("SpotNotice", null, node);
        interrupting = node;
        try {
            run.scheduler.clusters().drainNode(node, "spot interruption notice");
        } finally {
            interrupting = null;
        }
        return true;
    }

    boolean spotInterruption(String node) {
        if (!run.infra.present(node)) {
            return false;
        }
        run.record("SpotInterruption", null, node);
        interrupting = node;
        try {
            run.scheduler.clusters().removeNode(node);
        } finally {
            interrupting = null;
        }
        run.infra.nodeGone(node, run.now);
        return true;
    }
}
