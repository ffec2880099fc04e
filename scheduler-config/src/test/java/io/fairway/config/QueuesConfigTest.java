package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.FlavorFungibility;
import io.fairway.api.model.NodePool;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.QueueingStrategy;
import io.fairway.api.model.ResourceQuota;
import io.fairway.api.model.Resources;
import org.junit.jupiter.api.Test;

/** The one configuration model: what the simulator and the adapter both read, its defaults, and bad input. */
class QueuesConfigTest {
    /** Every field either reader accepted before there was one model: the simulator's and the adapter's. */
    private static final String ALL = """
            policy: themis
            policyParameters: {leaseSeconds: "600"}
            topologyLevels: [topology.kubernetes.io/zone, fairway.io/rack]
            flavors:
              - name: default
              - name: h100
                nodeLabels: {gpu: h100}
                nodeTaints: [{key: gpu, value: "true", effect: NoSchedule}]
                tolerations: [{key: gpu, operator: Exists, effect: NoSchedule}]
            cohorts:
              - name: research
                fairSharing: {weight: 3}
            clusterQueues:
              - name: team-a
                cohort: research
                queueingStrategy: StrictFIFO
                preemption: {withinClusterQueue: LowerOrNewerEqualPriority, reclaimWithinCohort: Any, borrowWithinCohort: {policy: LowerPriority}}
                fairSharing: {weight: 2}
                flavorFungibility: {whenCanBorrow: TryNextFlavor}
                priorityFactor: 0.5
                stopPolicy: Hold
                resourceGroups:
                  - coveredResources: [cpu, nvidia.com/gpu]
                    flavors:
                      - name: h100
                        resources:
                          - {name: cpu, nominalQuota: 500m}
                          - {name: nvidia.com/gpu, nominalQuota: 16, borrowingLimit: 8, lendingLimit: 4}
              - name: team-b
                fairSharingWeight: 0.5
            localQueues:
              - {name: gpu, namespace: team-a, clusterQueue: team-a}
              - {name: gpu, clusterQueue: team-b}
            nodePools:
              - name: gpu
                provisioningDelay: 90
                consolidationDelaySeconds: 30
                interruptionNoticeSeconds: 60
                consolidation: WhenUnderutilized
                limits: {nvidia.com/gpu: "64"}
                labels: {gpu: h100}
                taints: [{key: gpu, value: "true", effect: NoSchedule}]
                instanceTypes:
                  - {name: p5, cpu: "190", memory: 1900Gi, gpuShape: nvswitch-8, gpuModel: H100, pricePerHour: 98.32}
                  - {name: p5-spot, cpu: "190", memory: 1900Gi, gpuShape: nvswitch-8, gpuModel: H100, capacityType: spot,
                     interruptionsPerHour: 0.05}
            """;

    @Test
    void everyFieldOfBothReadersIsReadIntoTheModel() {
        QueuesConfig c = QueuesConfig.parse("all.yaml", ALL);
        assertThat(c.policy()).isEqualTo("themis");
        assertThat(c.policyParameters()).containsEntry("leaseSeconds", "600");
        assertThat(c.topologyLevels()).containsExactly("topology.kubernetes.io/zone", "fairway.io/rack");
        ClusterQueue a = c.clusterQueueModels().get(0);
        assertThat(a.cohort()).isEqualTo("research");
        assertThat(a.queueingStrategy()).isEqualTo(QueueingStrategy.STRICT_FIFO);
        assertThat(a.preemption()).isEqualTo(new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_OR_NEWER_EQUAL_PRIORITY,
                PreemptionPolicy.ReclaimWithinCohort.ANY, PreemptionPolicy.BorrowWithinCohort.LOWER_PRIORITY));
        assertThat(a.fairSharingWeight()).isEqualTo(2.0);
        assertThat(a.priorityFactor()).isEqualTo(0.5);
        assertThat(a.stopped()).isTrue();
        assertThat(a.flavorFungibility()).isEqualTo(FlavorFungibility.TRY_NEXT_FLAVOR);
        assertThat(a.groupFor(Resources.GPU).flavors().get(0).quota(Resources.GPU)).isEqualTo(new ResourceQuota(Resources.GPU, 16, 8, 4));
        assertThat(a.groupFor(Resources.CPU).flavors().get(0).quota(Resources.CPU).nominal()).isEqualTo(500);
        assertThat(c.clusterQueueModels().get(1).fairSharingWeight()).isEqualTo(0.5);
        assertThat(c.cohortModels().get(0).fairSharingWeight()).isEqualTo(3.0);
        assertThat(c.flavorModels().get(1).nodeLabels()).containsEntry("gpu", "h100");
        assertThat(c.flavorModels().get(1).tolerations()).hasSize(1);
        assertThat(c.localQueueModels()).extracting(l -> l.key() + "->" + l.clusterQueue()).containsExactly("team-a/gpu->team-a", "default/gpu->team-b");
        NodePool p = c.nodePools().get(0).toModel("east");
        assertThat(p.cluster()).isEqualTo("east");
        assertThat(p.provisioningDelayMillis()).isEqualTo(90_000);
        assertThat(p.consolidationDelayMillis()).isEqualTo(30_000);
        assertThat(p.consolidation()).isEqualTo(NodePool.Consolidation.WHEN_UNDERUTILIZED);
        assertThat(p.instanceTypes()).hasSize(2);
        assertThat(c.nodePools().get(0).interruptionRates()).containsExactly(java.util.Map.entry("p5-spot", 0.05));
        assertThat(c.nodePools().get(0).interruptionNoticeSeconds()).isEqualTo(60.0);
        assertThat(c.nodePoolModels()).extracting(NodePool::cluster).containsOnly(io.fairway.api.model.Node.DEFAULT_CLUSTER);
    }

    @Test
    void omittedFieldsTakeTheirDefaults() {
        QueuesConfig c = QueuesConfig.parse("min.yaml", """
                flavors: [{name: default}]
                clusterQueues: [{name: q}]
                localQueues: [{name: lq, clusterQueue: q}]
                nodePools: [{name: p, instanceTypes: [{name: t, cpu: "4"}]}]
                """);
        assertThat(c.policy()).isEqualTo(QueuesConfig.DEFAULT_POLICY);
        assertThat(c.policyParameters()).isEmpty();
        assertThat(c.topologyLevels()).isEmpty();
        assertThat(c.cohorts()).isEmpty();
        ClusterQueue q = c.clusterQueueModels().get(0);
        assertThat(q.preemption()).isEqualTo(PreemptionPolicy.NEVER);
        assertThat(q.fairSharingWeight()).isEqualTo(1.0);
        assertThat(q.priorityFactor()).isEqualTo(1.0);
        assertThat(q.stopped()).isFalse();
        assertThat(q.queueingStrategy()).isNull();
        assertThat(q.flavorFungibility()).isEqualTo(FlavorFungibility.BORROW_FIRST);
        assertThat(c.localQueueModels().get(0).namespace()).isEqualTo("default");
        NodePoolConfig p = c.nodePools().get(0);
        assertThat(p.provisioningDelaySeconds()).isEqualTo(60.0);
        assertThat(p.consolidationDelaySeconds()).isEqualTo(300.0);
        assertThat(p.interruptionNoticeSeconds()).isEqualTo(NodePoolConfig.DEFAULT_INTERRUPTION_NOTICE_SECONDS);
        assertThat(p.instanceTypes().get(0).capacityType()).isEqualTo("on-demand");
        assertThat(p.toModel(null).consolidation()).isEqualTo(NodePool.Consolidation.WHEN_EMPTY);
    }

    @Test
    void aBadValueIsRefusedNamingTheLineTheFieldAndTheValue() {
        assertThatThrownBy(() -> QueuesConfig.parse("cm", "clusterQueues:\n  - name: q\n    queueingStrategy: Random\n"))
                .isInstanceOf(InvalidSpecException.class)
                .hasMessageStartingWith("cm line 2: clusterQueues[0]: queueingStrategy: unknown value \"Random\"; known: StrictFIFO, BestEffortFIFO")
                .satisfies(e -> assertThat(((InvalidSpecException) e).field()).isEqualTo("clusterQueues[0]"));
        assertThatThrownBy(() -> QueuesConfig.parse("cm", "flavors: [{name: a}]\nclusterQueues:\n  - name: q\n"
                + "    resourceGroups: [{coveredResources: [cpu], flavors: [{name: a, resources: [{name: cpu, nominalQuota: lots}]}]}]\n"))
                .hasMessageContaining("cm line 4").hasMessageContaining("\"lots\" is not a quantity");
        assertThatThrownBy(() -> QueuesConfig.parse("cm", "clusterQueues:\n  - {name: q, stopPolicy: Maybe}\n"))
                .hasMessageContaining("stopPolicy must be None, Hold or HoldAndDrain, was Maybe");
        assertThatThrownBy(() -> QueuesConfig.parse("cm", "nodePools:\n  - {name: p, provisioningDelaySeconds: -1, instanceTypes: [{name: t}]}\n"))
                .hasMessageContaining("node pool p: provisioningDelaySeconds must be >= 0, was -1.0");
        assertThatThrownBy(() -> QueuesConfig.parse("cm", "nodePools:\n  - {name: p, instanceTypes: [{name: t, interruptionsPerHour: 1}]}\n"))
                .hasMessageContaining("instance type t: only spot capacity is interrupted");
        assertThatThrownBy(() -> QueuesConfig.parse("cm", "nodePools:\n  - {name: p, instanceTypes: [{name: t, capacityType: reserved}]}\n"))
                .hasMessageContaining("capacityType must be spot or on-demand, was reserved");
        assertThatThrownBy(() -> QueuesConfig.parse("cm", "nodePools:\n  - {name: p}\n"))
                .hasMessageContaining("node pool p: at least one instance type is required");
        assertThatThrownBy(() -> QueuesConfig.parse("cm", "cohorts:\n  - {name: c, fairSharing: {weight: 0}}\n"))
                .hasMessageContaining("fairSharing.weight must be > 0, was 0.0");
        assertThatThrownBy(() -> QueuesConfig.parse("cm", "clusterQueues:\n  - {name: q, flavorFungibility: {whenCanBorrow: Always}}\n"))
                .hasMessageContaining("flavorFungibility.whenCanBorrow must be MayStopSearch (or Borrow) or TryNextFlavor, was Always");
    }

    @Test
    void kueueFieldsForNamespacesPreemptionAndFungibilityAreRead() {
        QueuesConfig c = QueuesConfig.parse("cm", """
                flavors: [{name: default}]
                clusterQueues:
                  - name: team-a
                    cohort: research
                    namespaceSelector:
                      matchLabels: {team: a}
                      matchExpressions: [{key: tier, operator: In, values: [gold, silver]}, {key: frozen, operator: DoesNotExist}]
                    preemption:
                      reclaimWithinCohort: LowerPriority
                      borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: 100}
                      cohortRules: FairwayStrict
                    flavorFungibility: {whenCanBorrow: MayStopSearch, whenCanPreempt: TryNextFlavor}
                localQueues:
                  - {name: gpu, namespace: team-a, clusterQueue: team-a, namespaceLabels: {team: a, tier: gold}}
                  - {name: gpu, namespace: team-z, clusterQueue: team-a, namespaceLabels: {team: a, tier: bronze}}
                """);
        ClusterQueue cq = c.clusterQueues().get(0).toModel();
        assertThat(cq.preemption().maxPriorityThreshold()).isEqualTo(100);
        assertThat(cq.preemption().cohortRules()).isEqualTo(PreemptionPolicy.CohortRules.FAIRWAY_STRICT);
        assertThat(cq.flavorFungibility()).isEqualTo(FlavorFungibility.BORROW_FIRST);
        assertThat(cq.admitsNamespace(c.localQueues().get(0).toModel().namespaceLabels())).isTrue();
        assertThat(cq.admitsNamespace(c.localQueues().get(1).toModel().namespaceLabels())).isFalse();
        assertThat(cq.admitsNamespace(java.util.Map.of("team", "a", "tier", "gold", "frozen", "yes"))).isFalse();
        // omitted: Kueue's cohort rules, no threshold, every namespace
        ClusterQueue plain = QueuesConfig.parse("cm", "clusterQueues: [{name: q}]\n").clusterQueues().get(0).toModel();
        assertThat(plain.preemption().cohortRules()).isEqualTo(PreemptionPolicy.CohortRules.KUEUE);
        assertThat(plain.namespaceSelector()).isNull();
        assertThat(plain.admitsNamespace(java.util.Map.of())).isTrue();
    }

    @Test
    void badKueueFieldsAreRefusedNamingTheFieldAndTheValue() {
        assertThatThrownBy(() -> QueuesConfig.parse("cm", "clusterQueues:\n  - name: q\n"
                + "    namespaceSelector: {matchExpressions: [{key: tier, operator: Near, values: [a]}]}\n"))
                .isInstanceOf(InvalidSpecException.class).hasMessageContaining("operator").hasMessageContaining("\"Near\"");
        assertThatThrownBy(() -> QueuesConfig.parse("cm", "clusterQueues:\n  - name: q\n"
                + "    namespaceSelector: {matchExpressions: [{key: tier, operator: Exists, values: [a]}]}\n"))
                .hasMessageContaining("matchExpressions[tier]: operator Exists takes no values, was given [a]");
        assertThatThrownBy(() -> QueuesConfig.parse("cm", "clusterQueues:\n  - name: q\n"
                + "    preemption: {borrowWithinCohort: {policy: Never, maxPriorityThreshold: 5}}\n"))
                .hasMessageContaining("maxPriorityThreshold 5 needs borrowWithinCohort.policy LowerPriority, was NEVER");
        assertThatThrownBy(() -> QueuesConfig.parse("cm", "clusterQueues:\n  - name: q\n    preemption: {cohortRules: Loose}\n"))
                .hasMessageContaining("preemption.cohortRules: unknown value \"Loose\"; known: Kueue, FairwayStrict");
        assertThatThrownBy(() -> QueuesConfig.parse("cm", "clusterQueues:\n  - {name: q, flavorFungibility: {whenCanPreempt: Sometimes}}\n"))
                .hasMessageContaining("flavorFungibility.whenCanPreempt must be TryNextFlavor or MayStopSearch, was Sometimes");
    }

    @Test
    void crossEntryErrorsNameTheOwnerAndTheName() {
        assertThatThrownBy(() -> QueuesConfig.parse("cm", "flavors: [{name: a}]\nclusterQueues:\n  - name: q\n"
                + "    resourceGroups: [{coveredResources: [cpu], flavors: [{name: ghost, resources: [{name: cpu, nominalQuota: 1}]}]}]\n"))
                .isInstanceOf(InvalidSpecException.class)
                .hasMessage("ClusterQueue q: flavor ghost is not defined under flavors (defined: [a])")
                .satisfies(e -> assertThat(((InvalidSpecException) e).value()).isEqualTo("ghost"));
        assertThatThrownBy(() -> QueuesConfig.parse("cm", "clusterQueues: [{name: q}, {name: q}]\n"))
                .hasMessageContaining("clusterQueues: q is listed twice");
        assertThatThrownBy(() -> QueuesConfig.parse("cm", "localQueues: [{name: l, clusterQueue: q}, {name: l, namespace: default, clusterQueue: q}]\n"))
                .hasMessageContaining("localQueues: default/l is listed twice");
        assertThatThrownBy(() -> QueuesConfig.parse("cm", "nodePools: [{name: p, instanceTypes: [{name: t}]}, {name: p, instanceTypes: [{name: t}]}]\n"))
                .hasMessageContaining("nodePools: p is listed twice");
    }

    @Test
    void anUnknownFieldIsNamedWithTheKnownOnes() {
        assertThatThrownBy(() -> QueuesConfig.parse("cm", "flavors: [{name: a}]\nclusterQueues:\n  - name: q\n    nominalQuotas: 5\n"))
                .hasMessageStartingWith("cm line 4: clusterQueues[0]: unknown field \"nominalQuotas\"; known fields: cohort, fairSharing");
        assertThatThrownBy(() -> ConfigYaml.read("q.yaml", "flavors: [{name: a}]\npolicyy: fifo\n", QueuesConfig.class))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("q.yaml:2:1: unknown field \"policyy\"")
                .satisfies(e -> assertThat(((ConfigException) e).line()).isEqualTo(2));
    }

    @Test
    void emptyOrOversizedInputIsRefusedBeforeParsing() {
        assertThatThrownBy(() -> QueuesConfig.parse("cm", "  \n")).hasMessage("cm: the configuration is empty");
        assertThatThrownBy(() -> ConfigYaml.read("q.yaml", "", QueuesConfig.class)).hasMessage("q.yaml: is empty");
        assertThatThrownBy(() -> QueuesConfig.parse("cm", "x".repeat(QueuesConfig.MAX_LINE + 1)))
                .hasMessageContaining("cm line 1: the line is 65537 characters long; at most 65536");
    }
}
