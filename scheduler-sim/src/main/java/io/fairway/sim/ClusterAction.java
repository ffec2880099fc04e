package io.fairway.sim;

import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.core.Scheduler;

/**
 * A change to the cluster or its queues at a given simulated time: a scenario's {@code events}. Actions of one
 * instant are applied after that instant's completions and before its arrivals and its round.
 *
 * <pre>{@code
 * ClusterAction late = new ClusterAction.AddLocalQueue(300_000, new LocalQueue("default", "late", "cq"));
 * }</pre>
 */
public sealed interface ClusterAction {
    /** @return when it happens, in simulated milliseconds */
    long atMillis();

    /** @param scheduler the scheduler to change */
    void applyTo(Scheduler scheduler);

    /** @return a one-line description */
    String describe();

    /**
     * Creates a LocalQueue.
     *
     * @param atMillis when
     * @param queue the LocalQueue
     */
    record AddLocalQueue(long atMillis, LocalQueue queue) implements ClusterAction {
        @Override
        public void applyTo(Scheduler scheduler) {
            scheduler.queues().addLocalQueue(queue);
        }

        @Override
        public String describe() {
            return "add LocalQueue " + queue.key() + " -> " + queue.clusterQueue();
        }
    }

    /**
     * Creates or replaces a ClusterQueue.
     *
     * @param atMillis when
     * @param queue the ClusterQueue
     */
    record AddClusterQueue(long atMillis, ClusterQueue queue) implements ClusterAction {
        @Override
        public void applyTo(Scheduler scheduler) {
            scheduler.queues().addClusterQueue(queue);
        }

        @Override
        public String describe() {
            return "add ClusterQueue " + queue.name();
        }
    }

    /**
     * Retires a ClusterQueue: it is stopped at once (admits nothing new; its running jobs run on) and removed when
     * it holds nothing — at once when idle; the engine refuses to remove a queue whose jobs hold resources.
     *
     * @param atMillis when
     * @param name the ClusterQueue
     */
    record RemoveClusterQueue(long atMillis, String name) implements ClusterAction {
        @Override
        public void applyTo(Scheduler scheduler) {
            scheduler.queues().stopClusterQueue(name, true);
            try {
                scheduler.queues().removeClusterQueue(name);
            } catch (io.fairway.api.InvalidSpecException busy) {
                // still running jobs: it stays stopped, so it admits nothing more
            }
        }

        @Override
        public String describe() {
            return "remove ClusterQueue " + name;
        }
    }

    /**
     * Adds a node.
     *
     * @param atMillis when
     * @param node the node
     */
    record AddNode(long atMillis, Node node) implements ClusterAction {
        @Override
        public void applyTo(Scheduler scheduler) {
            scheduler.clusters().addNode(node);
        }

        @Override
        public String describe() {
            return "add node " + node.name();
        }
    }

    /**
     * Removes a node (a failure): its jobs are preempted and go back to pending.
     *
     * @param atMillis when
     * @param node the node name
     */
    record RemoveNode(long atMillis, String node) implements ClusterAction {
        @Override
        public void applyTo(Scheduler scheduler) {
            scheduler.clusters().removeNode(node);
        }

        @Override
        public String describe() {
            return "remove node " + node;
        }
    }

    /**
     * Cordons or uncordons a node.
     *
     * @param atMillis when
     * @param node the node name
     * @param cordoned the new state
     */
    record CordonNode(long atMillis, String node, boolean cordoned) implements ClusterAction {
        @Override
        public void applyTo(Scheduler scheduler) {
            scheduler.clusters().cordon(node, cordoned);
        }

        @Override
        public String describe() {
            return (cordoned ? "cordon" : "uncordon") + " node " + node;
        }
    }

    /**
     * A whole cluster is lost. In a single-actuator simulation its nodes are removed at once and its jobs go back to
     * pending; in a multi-cluster simulation its executor falls silent, fences itself, and the hub declares the
     * cluster lost after its grace period.
     *
     * @param atMillis when
     * @param cluster the cluster name
     */
    record LoseCluster(long atMillis, String cluster) implements ClusterAction {
        @Override
        public void applyTo(Scheduler scheduler) {
            scheduler.clusters().removeCluster(cluster);
        }

        @Override
        public String describe() {
            return "lose cluster " + cluster;
        }
    }

    /**
     * A cluster joins with its nodes.
     *
     * @param atMillis when
     * @param cluster the cluster (its topology levels)
     * @param nodes its nodes
     */
    record JoinCluster(long atMillis, io.fairway.api.model.ClusterSpec cluster, java.util.List<Node> nodes) implements ClusterAction {
        /** Copies. */
        public JoinCluster {
            nodes = java.util.List.copyOf(nodes);
        }

        @Override
        public void applyTo(Scheduler scheduler) {
            scheduler.clusters().addCluster(cluster);
            for (Node n : nodes) {
                scheduler.clusters().addNode(n);
            }
        }

        @Override
        public String describe() {
            return "cluster " + cluster.name() + " joins with " + nodes.size() + " node(s)";
        }
    }

    /**
     * Cancels a job.
     *
     * @param atMillis when
     * @param jobId the job
     */
    record CancelJob(long atMillis, String jobId) implements ClusterAction {
        @Override
        public void applyTo(Scheduler scheduler) {
            scheduler.cancel(jobId);
        }

        @Override
        public String describe() {
            return "cancel job " + jobId;
        }
    }
}
