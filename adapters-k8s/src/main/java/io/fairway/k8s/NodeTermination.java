package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Taint;
import io.fairway.api.InvalidSpecException;
import java.util.List;
import java.util.Optional;

/**
 * Which marks on a Node mean "this node is about to go away" (a spot interruption, a scheduled termination): a
 * taint with one of {@link #taintKeys()} (any value and effect), or a node condition of one of
 * {@link #conditionTypes()} whose status is {@code True}. The adapter drains such a node as the simulator drains a
 * node on a spot interruption notice ({@code Clusters#drainNode}): nothing new is placed on it, every Job with a pod
 * there is preempted and requeued, and a Job that declares checkpointing keeps the progress it reported.
 *
 * <p>The default taint keys are the ones the usual node-termination handlers set when a spot instance is reclaimed:
 * <ul>
 *   <li>{@code aws-node-termination-handler/spot-itn} — AWS Node Termination Handler (with {@code TAINT_NODE=true})
 *       on a spot interruption notice (its {@code SpotInterruptionTaint},
 *       https://github.com/aws/aws-node-termination-handler, {@code pkg/node/node.go} and the README's
 *       {@code TAINT_NODE} setting);</li>
 *   <li>{@code karpenter.sh/disrupted} — Karpenter v1, {@code NoSchedule}, set on every node it disrupts, an
 *       interruption included, before it drains the node (https://karpenter.sh/docs/concepts/disruption/);</li>
 *   <li>{@code cloud.google.com/impending-node-termination} — GKE's node termination handler on a preemption
 *       or termination notice of a spot or preemptible VM
 *       (https://github.com/GoogleCloudPlatform/k8s-node-termination-handler).</li>
 * </ul>
 * No condition type is watched by default (none of these handlers sets one); a cluster whose Node Problem Detector
 * reports, say, a {@code TerminationNotice} condition lists it in {@link #conditionTypes()}.
 *
 * <pre>{@code
 * NodeTermination t = NodeTermination.DEFAULT.withTaintKeys(List.of("example.com/reclaim"));
 * t.noticeOf(node);   // Optional["taint example.com/reclaim"] when the node carries it
 * }</pre>
 *
 * @param taintKeys taint keys that announce a node's termination
 * @param conditionTypes node condition types that announce it when {@code True}
 */
public record NodeTermination(List<String> taintKeys, List<String> conditionTypes) {
    /** AWS Node Termination Handler's spot interruption taint. */
    public static final String AWS_NTH_SPOT_TAINT = "aws-node-termination-handler/spot-itn";
    /** Karpenter v1's disruption taint. */
    public static final String KARPENTER_DISRUPTED_TAINT = "karpenter.sh/disrupted";
    /** GKE's impending termination taint. */
    public static final String GKE_TERMINATION_TAINT = "cloud.google.com/impending-node-termination";
    /** The three taints above; no condition. */
    public static final NodeTermination DEFAULT = new NodeTermination(List.of(AWS_NTH_SPOT_TAINT, KARPENTER_DISRUPTED_TAINT, GKE_TERMINATION_TAINT),
            List.of());
    /** Nothing counts as a termination notice (only a deleted Node is lost). */
    public static final NodeTermination NONE = new NodeTermination(List.of(), List.of());

    /** Validates: keys and types non-blank. */
    public NodeTermination {
        taintKeys = List.copyOf(taintKeys == null ? List.of() : taintKeys);
        conditionTypes = List.copyOf(conditionTypes == null ? List.of() : conditionTypes);
        for (int i = 0; i < taintKeys.size(); i++) {
            String k = taintKeys.get(i);
            InvalidSpecException.check(!k.isBlank() && !k.contains(" "), "nodeTermination.taintKeys[" + i + "]", k, "nodeTermination.taintKeys[%d] is not a taint key: \"%s\"", i, k);
        }
        for (int i = 0; i < conditionTypes.size(); i++) {
            String c = conditionTypes.get(i);
            InvalidSpecException.check(!c.isBlank() && !c.contains(" "), "nodeTermination.conditionTypes[" + i + "]", c, "nodeTermination.conditionTypes[%d] is not a condition type: \"%s\"", i, c);
        }
    }

    /**
     * @param keys the taint keys to watch instead
     * @return a copy watching those taints
     */
    public NodeTermination withTaintKeys(List<String> keys) {
        return new NodeTermination(keys, conditionTypes);
    }

    /**
     * @param types the condition types to watch instead
     * @return a copy watching those conditions
     */
    public NodeTermination withConditionTypes(List<String> types) {
        return new NodeTermination(taintKeys, types);
    }

    /**
     * @param node a Kubernetes node
     * @return what announces its termination ({@code taint KEY} or {@code condition TYPE}), or empty
     */
    public Optional<String> noticeOf(io.fabric8.kubernetes.api.model.Node node) {
        if (node.getSpec() != null && node.getSpec().getTaints() != null) {
            for (Taint t : node.getSpec().getTaints()) {
                if (taintKeys.contains(t.getKey())) {
                    return Optional.of("taint " + t.getKey());
                }
            }
        }
        if (node.getStatus() != null && node.getStatus().getConditions() != null) {
            for (NodeCondition c : node.getStatus().getConditions()) {
                if (conditionTypes.contains(c.getType()) && "True".equals(c.getStatus())) {
                    return Optional.of("condition " + c.getType());
                }
            }
        }
        return Optional.empty();
    }
}
