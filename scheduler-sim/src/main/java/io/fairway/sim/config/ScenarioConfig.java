package io.fairway.sim.config;

import com.fasterxml.jackson.annotation.JsonAlias;
import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.Checkpointing;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PlacementSensitivity;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.Resources;
import io.fairway.config.Names;
import io.fairway.config.QueuesConfig.ClusterQueueConfig;
import io.fairway.config.QueuesConfig.LocalQueueConfig;
import io.fairway.config.QueuesConfig;
import io.fairway.config.Validated;
import io.fairway.sim.ActuatorFaults;
import io.fairway.sim.ClusterAction;
import io.fairway.sim.ClusterModel;
import io.fairway.sim.QueueModel;
import io.fairway.sim.SimJob;
import io.fairway.sim.SimulationInput;
import io.fairway.sim.trace.GangShape;
import io.fairway.sim.trace.SimulatedTime;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A self-contained scenario: a cluster, its queues, jobs with explicit durations and timed events, in one YAML
 * file (see {@code docs/concepts/simulation.md}).
 *
 * <pre>
 * name: cedana-quota
 * description: three 32-core jobs against a 64-core quota
 * policies: [best-effort-fifo]          # optional: the policies to run (default: the command line's)
 * seed: 1                               # optional
 * roundIntervalSeconds: 0               # optional: periodic rounds besides those at events
 * cluster:                              # a cluster file's content
 *   clusters: [{name: default, nodeGroups: [{namePrefix: cpu, count: 1, cpu: "128", memory: 512Gi}]}]
 * queues:                               # a queues file's content
 *   flavors: [{name: default}]
 *   clusterQueues: [...]
 *   localQueues: [...]
 * jobs:
 *   - {id: j1, submitSeconds: 0, durationSeconds: 600, queue: lq, resources: {cpu: "32"}}
 *   - {id: g1, submitSeconds: 5, durationSeconds: 60, queue: lq, gpus: 16, model: vgg16}
 *   - {id: g2, durationSeconds: 60, queue: lq, gpus: 16, topology: {required: fairway.io/rack}}
 * events:
 *   - {at: 300, addLocalQueue: {name: late, clusterQueue: cq}}
 *   - {at: 7200, loseCluster: west}      # with several clusters: fairway simulate runs the multi-cluster engine
 *   - {at: 14400, joinCluster: late}     # a cluster of the cluster section, absent until then
 * actuatorFaults:                       # optional: see ActuatorFaultsConfig
 *   failureRates: {admit: 0.3}
 * </pre>
 *
 * @param name the scenario name
 * @param description what it shows
 * @param policies the policies to run, or empty for the command line's choice
 * @param seed the seed, or null for the command line's
 * @param roundIntervalSeconds periodic rounds (0 or null: only at events)
 * @param cluster the cluster
 * @param queues the queues
 * @param jobs the jobs
 * @param events timed cluster and queue changes
 * @param actuatorFaults the simulated actuator's failures, timeouts and retries, or null for none
 */
public record ScenarioConfig(String name, String description, List<String> policies, Long seed, Double roundIntervalSeconds,
                             ClusterConfig cluster, QueuesConfig queues, List<JobConfig> jobs, List<EventConfig> events,
                             ActuatorFaultsConfig actuatorFaults) {
    /** Validates. */
    public ScenarioConfig {
        name = name == null || name.isBlank() ? "scenario" : name;
        description = description == null ? "" : description;
        policies = Names.list("policies", policies);
        InvalidSpecException.check(cluster != null, "cluster", null, "scenario %s: a cluster section is required", name);
        InvalidSpecException.check(queues != null, "queues", null, "scenario %s: a queues section is required", name);
        jobs = Names.list("jobs", jobs);
        events = Names.list("events", events);
        InvalidSpecException.check(roundIntervalSeconds == null || roundIntervalSeconds >= 0, "roundIntervalSeconds", roundIntervalSeconds,
                "roundIntervalSeconds must be >= 0, was %s", roundIntervalSeconds);
        if (roundIntervalSeconds != null) {
            clock("", "roundIntervalSeconds", roundIntervalSeconds);
        }
        Set<String> ids = new HashSet<>();
        for (JobConfig j : jobs) {
            InvalidSpecException.check(ids.add(j.id()), "jobs", j.id(), "job id %s is listed twice", j.id());
        }
    }

    /**
     * Refuses a time the simulator's clock cannot represent (NaN, or beyond {@link SimulatedTime#MAX_SECONDS}): the rule
     * the trace readers apply. Negative values are left to each field's own check.
     */
    static void clock(String context, String field, double seconds) {
        if (Double.isNaN(seconds) || seconds > SimulatedTime.MAX_SECONDS) {
            throw new InvalidSpecException(field, seconds, context + SimulatedTime.beyondTheClock(field, String.valueOf(seconds)));
        }
    }

    /**
     * @param file a scenario YAML file
     * @return the scenario
     * @throws SimulationConfigException naming the file and line of the first error
     */
    public static Scenario load(Path file) {
        return YamlFiles.read(file, ScenarioConfig.class).toScenario(file.toString());
    }

    /**
     * @param source the file name used in errors
     * @return the scenario, ready to simulate
     */
    public Scenario toScenario(String source) {
        Map<String, Long> joins = new java.util.LinkedHashMap<>();
        Map<String, Long> losses = new java.util.LinkedHashMap<>();
        for (EventConfig e : events) {
            if (e.joinCluster() != null && joins.put(e.joinCluster(), Math.round(e.atSeconds() * 1000)) != null) {
                throw new SimulationConfigException(source, 0, 0, "events: cluster " + e.joinCluster() + " joins twice", null);
            }
            if (e.loseCluster() != null && losses.put(e.loseCluster(), Math.round(e.atSeconds() * 1000)) != null) {
                throw new SimulationConfigException(source, 0, 0, "events: cluster " + e.loseCluster() + " is lost twice", null);
            }
        }
        ClusterConfig.Setup setup = cluster.toSetup(source, joins, losses);
        ClusterModel c = setup.model();
        QueueModel q = QueueFiles.toModel(queues, source);
        List<SimJob> js = new ArrayList<>();
        Set<String> levels = new java.util.TreeSet<>();
        levels.add(io.fairway.api.model.Node.HOSTNAME_LABEL);
        c.clusters().forEach(cs -> levels.addAll(cs.topologyLevels()));
        setup.actions().forEach(a -> {
            if (a instanceof ClusterAction.JoinCluster jc) {
                levels.addAll(jc.cluster().topologyLevels());
            }
        });
        for (JobConfig j : jobs) {
            SimJob job = j.toJob();
            for (PodSet ps : job.spec().podSets()) {
                String level = ps.topology().level();
                if (level != null && !levels.contains(level)) {
                    throw new SimulationConfigException(source, 0, 0, "job " + j.id() + ": topology level " + level + " is not a topology level of "
                            + "the cluster; known levels: " + String.join(", ", levels) + " (declare it in the cluster's topologyLevels)", null);
                }
            }
            if (j.priorityClass() != null && q.priorityClasses().stream().noneMatch(pc -> pc.name().equals(j.priorityClass()))) {
                throw new SimulationConfigException(source, 0, 0, "job " + j.id() + ": priorityClass " + j.priorityClass() + " is not defined under the"
                        + " queues' priorityClasses (defined: " + q.priorityClasses().stream().map(pc -> pc.name()).toList() + ")", null);
            }
            js.add(job);
        }
        List<ClusterAction> as = new ArrayList<>(setup.actions());
        for (EventConfig e : events) {
            if (e.joinCluster() == null && e.loseCluster() == null) {
                as.add(e.toAction());
            }
        }
        as.sort(java.util.Comparator.comparingLong(ClusterAction::atMillis));
        return new Scenario(name, description, policies, seed, roundIntervalSeconds == null ? 0 : roundIntervalSeconds,
                new SimulationInput(name, c, q, js, as), actuatorFaults == null ? ActuatorFaults.NONE : actuatorFaults.toModel());
    }

    /**
     * A job with an explicit duration.
     *
     * @param id its id
     * @param submitSeconds when it is submitted
     * @param durationSeconds its run time at full size with ideal placement
     * @param queue its LocalQueue (default {@code default})
     * @param namespace its namespace (default {@code default})
     * @param members member count (default 1)
     * @param minMembers the fewest members it can run with (elastic), or null
     * @param resources per-member resources as quantities ({@code {cpu: "32", memory: 64Gi, nvidia.com/gpu: 8}})
     * @param gpus instead of members and resources: a total GPU count, shaped by {@link GangShape}
     * @param priority its priority
     * @param jobSet its job set
     * @param model its model name, for {@link PlacementSensitivity#forModel}
     * @param checkpointing how it checkpoints, or null
     * @param topology where its members must or should be relative to each other, or null for no constraint
     * @param nodeSelector labels a node must carry for its members (in addition to its flavor's), as a pod's nodeSelector
     * @param tolerations taints of nodes its members tolerate (in addition to its flavor's), as a pod's tolerations
     * @param nodeAffinity the required node affinity of its members, as a pod's
     *     {@code requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms}: a node must match one term (each term
     *     a list of {@code matchExpressions}, all of which must hold), in addition to the node selector
     * @param priorityClass the name of a priority class defined under the queues' {@code priorityClasses}: its value
     *     becomes the job's priority, and a class that is not preemptible keeps the job from every preemption
     * @param podSets instead of members, resources, gpus, minMembers and topology: several pod sets (a launcher and its
     *     workers, a driver and its executors), admitted together as one gang
     */
    public record JobConfig(String id, Double submitSeconds, Double durationSeconds, String queue, String namespace, Integer members,
                            Integer minMembers, Map<String, String> resources, Long gpus, Integer priority, String jobSet, String model,
                            CheckpointingConfig checkpointing, TopologyConfig topology, Map<String, String> nodeSelector,
                            List<io.fairway.config.QueuesConfig.TolerationConfig> tolerations, List<NodeSelectorTermConfig> nodeAffinity,
                            String priorityClass, List<PodSetConfig> podSets) implements Validated {
        /** Checks the fields that need no other; {@link #validate()} builds the job. */
        public JobConfig {
            Names.require("id", id);
            InvalidSpecException.check(durationSeconds != null, "durationSeconds", null, "job %s: durationSeconds is required", id);
            clock("job " + id + ": ", "durationSeconds", durationSeconds);
            if (submitSeconds != null) {
                clock("job " + id + ": ", "submitSeconds", submitSeconds);
            }
            if (podSets != null) {
                InvalidSpecException.check(!podSets.isEmpty(), "podSets", podSets, "job %s: podSets must list at least one pod set", id);
                InvalidSpecException.check(gpus == null && members == null && resources == null && minMembers == null && topology == null,
                        "podSets", podSets.size() + " pod sets",
                        "job %s: give podSets, or gpus / members / resources / minMembers / topology, not both", id);
                podSets = List.copyOf(podSets);
            } else {
                InvalidSpecException.check(gpus == null || members == null && resources == null, "gpus", gpus,
                        "job %s: give either gpus or members/resources, not both", id);
                InvalidSpecException.check(gpus != null || resources != null && !resources.isEmpty(), "resources", resources,
                        "job %s: give resources (per member) or gpus", id);
            }
        }

        @Override
        public void validate() {
            toJob();
        }

        SimJob toJob() {
            PodSet ps = null;
            if (podSets != null) {
                // built below, one per entry
            } else if (gpus != null) {
                GangShape s = GangShape.forGpus(gpus);
                ps = PodSet.of("main", s.members(), Resources.builder().gpus(s.gpusPerMember()).build());
            } else {
                ps = PodSet.of("main", members == null ? 1 : members, Resources.parse(resources));
            }
            if (minMembers != null) {
                ps = ps.withMinCount(minMembers);
            }
            if (topology != null) {
                try {
                    ps = ps.withTopology(topology.toModel());
                } catch (InvalidSpecException e) {
                    throw new InvalidSpecException("topology", topology, "job " + id + ": " + e.getMessage());
                }
            }
            List<PodSet> all = new java.util.ArrayList<>();
            if (podSets != null) {
                java.util.Set<String> names = new java.util.HashSet<>();
                for (PodSetConfig c : podSets) {
                    PodSet p = c.toModel(id);
                    InvalidSpecException.check(names.add(p.name()), "podSets[" + p.name() + "].name", p.name(),
                            "job %s: pod set %s is listed twice", id, p.name());
                    all.add(p);
                }
            } else {
                all.add(ps);
            }
            Map<String, String> selector = null;
            if (nodeSelector != null && !nodeSelector.isEmpty()) {
                nodeSelector.forEach((k, v) -> InvalidSpecException.check(k != null && !k.isBlank() && v != null, "nodeSelector", k + "=" + v,
                        "job %s: a nodeSelector entry needs a label key and a value, got %s=%s", id, k, v));
                selector = nodeSelector;
            }
            List<io.fairway.api.model.Toleration> ts = tolerationModels();
            io.fairway.api.model.NodeAffinity affinity = affinityModel();
            for (int i = 0; i < all.size(); i++) { // the job's own selector, tolerations and affinity hold for each of its pod sets
                PodSet p = all.get(i);
                if (affinity != null) {
                    p = p.withAffinity(affinity);
                }
                if (selector != null) {
                    p = p.withNodeSelector(selector);
                }
                if (!ts.isEmpty()) {
                    p = p.withTolerations(ts);
                }
                all.set(i, p);
            }
            double submit = submitSeconds == null ? 0 : submitSeconds;
            InvalidSpecException.check(submit >= 0, "submitSeconds", submit, "job %s: submitSeconds must be >= 0, was %s", id, submit);
            JobSpec.Builder b = JobSpec.builder(id)
                    .namespace(namespace)
                    .queue(queue == null ? "default" : queue)
                    .jobSet(jobSet)
                    .priority(priority == null ? 0 : priority)
                    .priorityClass(priorityClass)
                    .submitTimeMillis(Math.round(submit * 1000))
                    .estimatedSeconds(durationSeconds)
                    .sensitivity(PlacementSensitivity.forModel(model));
            all.forEach(b::podSet);
            if (checkpointing != null) {
                b.checkpointing(checkpointing.toModel());
            }
            return new SimJob(b.build(), durationSeconds);
        }

        /** The job's tolerations, each checked. */
        private List<io.fairway.api.model.Toleration> tolerationModels() {
            List<io.fairway.api.model.Toleration> ts = new java.util.ArrayList<>();
            if (tolerations != null) {
                for (io.fairway.config.QueuesConfig.TolerationConfig t : tolerations) {
                    InvalidSpecException.check(t != null, "tolerations", null, "job %s: a toleration is empty", id);
                    t.validate();
                    ts.add(t.toModel());
                }
            }
            return ts;
        }

        /** The job's required node affinity, each term checked; null when it has none. */
        private io.fairway.api.model.NodeAffinity affinityModel() {
            io.fairway.api.model.NodeAffinity affinity = null;
            if (nodeAffinity != null && !nodeAffinity.isEmpty()) {
                List<io.fairway.api.model.NodeAffinity.Term> terms = new java.util.ArrayList<>();
                for (int i = 0; i < nodeAffinity.size(); i++) {
                    String f = "nodeAffinity[" + i + "]";
                    NodeSelectorTermConfig t = nodeAffinity.get(i);
                    InvalidSpecException.check(t != null && t.matchExpressions() != null && !t.matchExpressions().isEmpty(),
                            f + ".matchExpressions", t == null ? null : t.matchExpressions(),
                            "job %s: %s.matchExpressions needs at least one match expression", id, f);
                    List<io.fairway.api.model.NodeAffinity.Expression> es = new java.util.ArrayList<>();
                    for (int j = 0; j < t.matchExpressions().size(); j++) {
                        es.add(t.matchExpressions().get(j).toModel(id, f + ".matchExpressions[" + j + "]"));
                    }
                    terms.add(new io.fairway.api.model.NodeAffinity.Term(es));
                }
                affinity = new io.fairway.api.model.NodeAffinity(terms);
            }
            return affinity;
        }
    }

    /**
     * A node selector term of a required node affinity: every expression must hold.
     *
     * @param matchExpressions the expressions, at least one
     */
    public record NodeSelectorTermConfig(List<NodeSelectorRequirementConfig> matchExpressions) {
    }

    /**
     * A node selector requirement ({@code {key: zone, operator: In, values: [a, b]}}).
     *
     * @param key the label key
     * @param operator In, NotIn, Exists, DoesNotExist, Gt or Lt
     * @param values the values: one or more for In and NotIn, none for Exists and DoesNotExist, one integer for Gt and Lt
     */
    public record NodeSelectorRequirementConfig(String key, String operator, List<String> values) {
        io.fairway.api.model.NodeAffinity.Expression toModel(String job, String field) {
            InvalidSpecException.check(key != null && !key.isBlank(), field + ".key", key, "job %s: %s needs a key", job, field);
            io.fairway.api.model.NodeAffinity.Operator op = io.fairway.api.model.NodeAffinity.Operator.parse(field + ".operator", operator);
            try {
                return new io.fairway.api.model.NodeAffinity.Expression(key, op, values);
            } catch (InvalidSpecException e) {
                throw new InvalidSpecException(field + ".values", values, "job " + job + ": " + field + ".values: " + e.getMessage());
            }
        }
    }

    /**
     * One pod set of a job with several ({@code podSets: [{name: launcher, resources: {cpu: "2"}}, {name: worker, members: 4,
     * resources: {cpu: "16", nvidia.com/gpu: "8"}}]}).
     *
     * @param name its name, unique in the job
     * @param members member count (default 1)
     * @param minMembers the fewest members it can run with (elastic), or null
     * @param resources per-member resources as quantities
     * @param topology where its members must or should be, or null
     */
    public record PodSetConfig(String name, Integer members, Integer minMembers, Map<String, String> resources, TopologyConfig topology) {
        PodSet toModel(String job) {
            InvalidSpecException.check(name != null && !name.isBlank(), "podSets[].name", name, "job %s: every pod set needs a name", job);
            InvalidSpecException.check(resources != null && !resources.isEmpty(), "podSets[" + name + "].resources", resources,
                    "job %s: pod set %s: give resources (per member)", job, name);
            try {
                PodSet ps = PodSet.of(name, members == null ? 1 : members, Resources.parse(resources));
                if (minMembers != null) {
                    ps = ps.withMinCount(minMembers);
                }
                return topology == null ? ps : ps.withTopology(topology.toModel());
            } catch (InvalidSpecException e) {
                throw new InvalidSpecException(e.field(), e.value(), "job " + job + ": pod set " + name + ": " + e.getMessage());
            }
        }
    }

    /**
     * A job's topology request: give one of {@code required} and {@code preferred} (a topology level: a node label key of
     * the cluster's {@code topologyLevels}, or {@code kubernetes.io/hostname} for one node), or {@code nvlinkDomain: true},
     * or {@code spread: true}.
     *
     * <pre>
     * topology: {required: fairway.io/rack}     # all members in one rack, or wait
     * topology: {preferred: fairway.io/rack}    # one rack if possible
     * topology: {nvlinkDomain: true}            # all GPUs in one NVLink domain
     * topology: {spread: true}                  # one member per node as far as nodes go
     * </pre>
     *
     * @param required the level all members must share a domain of, or null
     * @param preferred the level all members should share a domain of, or null
     * @param nvlinkDomain true: all GPUs in one NVLink domain
     * @param spread true: spread members across nodes
     */
    public record TopologyConfig(String required, String preferred, Boolean nvlinkDomain, Boolean spread) implements Validated {
        @Override
        public void validate() {
            toModel();
        }

        io.fairway.api.job.TopologyRequest toModel() {
            boolean nv = Boolean.TRUE.equals(nvlinkDomain);
            boolean sp = Boolean.TRUE.equals(spread);
            int n = (required != null ? 1 : 0) + (preferred != null ? 1 : 0) + (nv ? 1 : 0) + (sp ? 1 : 0);
            InvalidSpecException.check(n == 1, "topology", this, "topology: give exactly one of required: LEVEL, preferred: LEVEL, "
                    + "nvlinkDomain: true, spread: true (found %d)", n);
            InvalidSpecException.check(required == null || !required.isBlank(), "topology.required", required,
                    "topology.required needs a level, e.g. fairway.io/rack");
            InvalidSpecException.check(preferred == null || !preferred.isBlank(), "topology.preferred", preferred,
                    "topology.preferred needs a level, e.g. fairway.io/rack");
            if (nv) {
                return io.fairway.api.job.TopologyRequest.nvlinkDomain();
            }
            if (sp) {
                return io.fairway.api.job.TopologyRequest.spreadAcrossNodes();
            }
            return required != null ? io.fairway.api.job.TopologyRequest.required(required.trim())
                    : io.fairway.api.job.TopologyRequest.preferred(preferred.trim());
        }
    }

    /**
     * How a job checkpoints.
     *
     * @param intervalSeconds seconds of progress between checkpoints
     * @param checkpointCostSeconds seconds a checkpoint takes (included in the duration)
     * @param restoreCostSeconds seconds a restore takes when the job resumes
     */
    public record CheckpointingConfig(Double intervalSeconds, Double checkpointCostSeconds, Double restoreCostSeconds)
            implements Validated {
        @Override
        public void validate() {
            toModel();
        }

        Checkpointing toModel() {
            InvalidSpecException.check(intervalSeconds != null, "checkpointing.intervalSeconds", null, "checkpointing.intervalSeconds is required");
            return new Checkpointing(intervalSeconds, checkpointCostSeconds == null ? 0 : checkpointCostSeconds,
                    restoreCostSeconds == null ? 0 : restoreCostSeconds);
        }
    }

    /**
     * A timed change; exactly one action per event.
     *
     * @param atSeconds when (also written {@code at})
     * @param addLocalQueue create a LocalQueue
     * @param addClusterQueue create or replace a ClusterQueue
     * @param removeClusterQueue remove a ClusterQueue
     * @param removeNode remove a node (its jobs are preempted)
     * @param cordonNode cordon a node
     * @param uncordonNode uncordon a node
     * @param cancelJob cancel a job
     * @param loseCluster lose a whole cluster (described in the cluster section)
     * @param joinCluster a cluster described in the cluster section joins (it is absent until then)
     */
    public record EventConfig(@JsonAlias("at") Double atSeconds, LocalQueueConfig addLocalQueue, ClusterQueueConfig addClusterQueue,
                              String removeClusterQueue, String removeNode, String cordonNode, String uncordonNode, String cancelJob,
                              String loseCluster, String joinCluster) {
        /** Validates: a time and exactly one action. */
        public EventConfig {
            InvalidSpecException.check(atSeconds != null && atSeconds >= 0, "at", atSeconds, "event: at (seconds, >= 0) is required");
            clock("event: ", "at", atSeconds);
            int n = 0;
            for (Object o : new Object[] {addLocalQueue, addClusterQueue, removeClusterQueue, removeNode, cordonNode, uncordonNode, cancelJob,
                loseCluster, joinCluster}) {
                n += o == null ? 0 : 1;
            }
            InvalidSpecException.check(n == 1, "event", n, "event at %s s: give exactly one of addLocalQueue, addClusterQueue, "
                    + "removeClusterQueue, removeNode, cordonNode, uncordonNode, cancelJob, loseCluster, joinCluster (found %d)", atSeconds, n);
        }

        ClusterAction toAction() {
            long t = Math.round(atSeconds * 1000);
            if (addLocalQueue != null) {
                return new ClusterAction.AddLocalQueue(t, addLocalQueue.toModel());
            } else if (addClusterQueue != null) {
                return new ClusterAction.AddClusterQueue(t, addClusterQueue.toModel());
            } else if (removeClusterQueue != null) {
                return new ClusterAction.RemoveClusterQueue(t, removeClusterQueue);
            } else if (removeNode != null) {
                return new ClusterAction.RemoveNode(t, removeNode);
            } else if (cordonNode != null) {
                return new ClusterAction.CordonNode(t, cordonNode, true);
            } else if (uncordonNode != null) {
                return new ClusterAction.CordonNode(t, uncordonNode, false);
            }
            return new ClusterAction.CancelJob(t, cancelJob);
        }
    }
}
