package io.fairway.sim.sweep;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.Checkpointing;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.Node;
import io.fairway.api.model.Resources;
import io.fairway.sim.ClusterModel;
import io.fairway.sim.SimJob;
import io.fairway.sim.SimulationInput;
import io.fairway.sim.config.Defaults;
import io.fairway.sim.trace.ThemisWorkloadGenerator;
import io.fairway.sim.trace.Trace;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Builds the workloads of a robustness sweep.
 *
 * <ul>
 *   <li><b>Philly windows</b> ({@link #phillyWindows}): per seed, a window of consecutive jobs (by submission time) of at
 *       most {@code maxGpus} GPUs drawn uniformly at random ({@link SplittableRandom} seeded with the seed) from a whole
 *       Philly trace, submission times rebased to 0; each run on a cluster sized to an offered load (nodes shaped like
 *       the bundled default cluster's: 8 V100 in a hybrid cube-mesh, racks of 4 nodes, at least enough nodes for the
 *       largest job allowed and never fewer than {@value #MIN_NODES}), with and without checkpoints.</li>
 *   <li><b>Themis-like</b> ({@link #themis}): {@link ThemisWorkloadGenerator} with {@value #THEMIS_APPS} apps at load
 *       {@value #THEMIS_LOAD} on 64 GPUs (16 nodes × 4 GPUs, PCIe, 2 racks; gangs of more than 4 GPUs split into
 *       members of at most 4) — the defaults of {@code fairway themis-repro}; its jobs checkpoint as generated.</li>
 *   <li><b>A fixed trace</b> ({@link #fixed}), such as Tiresias' 60 jobs, on the bundled 64-GPU cluster as
 *       {@code fairway simulate} runs it.</li>
 * </ul>
 *
 * <p>Offered load = Σ duration × GPUs ÷ (cluster GPUs × arrival span), the arrival span being the last submission minus
 * the first. Every workload gets the default queues for its cluster ({@link Defaults#queuesFor}: one ClusterQueue with
 * the whole capacity, a LocalQueue per queue of the jobs).
 */
public final class SweepWorkloads {
    /** Fewest nodes of a Philly window's cluster. */
    public static final int MIN_NODES = 4;
    /** Seconds a job restores from its checkpoint when given checkpointing by the sweep. */
    public static final double RESTORE_SECONDS = 30;
    /** GPUs of the Themis-like workload's cluster. */
    public static final int THEMIS_GPUS = 64;
    /** Apps of the Themis-like workload. */
    public static final int THEMIS_APPS = 150;
    /** Offered load of the Themis-like workload. */
    public static final double THEMIS_LOAD = 1.3;
    private static final int THEMIS_GPUS_PER_NODE = 4;

    private SweepWorkloads() {
    }

    /**
     * @param trace a trace, jobs in submission order
     * @param maxGpus the most GPUs a job may ask for
     * @return the jobs asking for at most {@code maxGpus} GPUs, in submission order
     */
    public static List<SimJob> eligible(Trace trace, int maxGpus) {
        List<SimJob> out = new ArrayList<>();
        for (SimJob j : trace.jobs()) {
            if (j.gpus() <= maxGpus) {
                out.add(j);
            }
        }
        return out;
    }

    /**
     * @param eligible how many jobs there are to draw from
     * @param size the window's size
     * @param seed the seed
     * @return the index of the window's first job, uniform over the windows that fit
     */
    public static int windowStart(int eligible, int size, long seed) {
        InvalidSpecException.check(size >= 2, "jobs", size, "a window needs at least 2 jobs, was %d", size);
        InvalidSpecException.check(eligible >= size, "jobs", size, "the trace has %d eligible jobs, fewer than a window of %d", eligible, size);
        return new SplittableRandom(seed).nextInt(eligible - size + 1);
    }

    /**
     * @param eligible jobs in submission order
     * @param start the first job's index
     * @param size how many jobs
     * @return those jobs with submission times rebased so the first is at 0
     */
    public static List<SimJob> window(List<SimJob> eligible, int start, int size) {
        List<SimJob> w = eligible.subList(start, start + size);
        long base = w.get(0).submitMillis();
        List<SimJob> out = new ArrayList<>(size);
        for (SimJob j : w) {
            out.add(new SimJob(j.spec().withSubmitTime(j.submitMillis() - base), j.durationSeconds()));
        }
        return out;
    }

    /** @param jobs jobs @return Σ duration × GPUs, in GPU-seconds */
    public static double demandGpuSeconds(List<SimJob> jobs) {
        double d = 0;
        for (SimJob j : jobs) {
            d += j.durationSeconds() * j.gpus();
        }
        return d;
    }

    /** @param jobs jobs @return the last submission minus the first, in seconds */
    public static double arrivalSpanSeconds(List<SimJob> jobs) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (SimJob j : jobs) {
            min = Math.min(min, j.submitMillis());
            max = Math.max(max, j.submitMillis());
        }
        return jobs.isEmpty() ? 0 : (max - min) / 1000.0;
    }

    /**
     * @param jobs jobs
     * @param gpus the cluster's GPUs
     * @return Σ duration × GPUs ÷ (GPUs × arrival span); infinite when every job arrives at once
     */
    public static double offeredLoad(List<SimJob> jobs, long gpus) {
        double span = arrivalSpanSeconds(jobs);
        return span <= 0 ? Double.POSITIVE_INFINITY : demandGpuSeconds(jobs) / (gpus * span);
    }

    /**
     * @param jobs jobs
     * @param load the offered load wanted
     * @param gpusPerNode GPUs of a node
     * @param minNodes the fewest nodes
     * @return the whole number of nodes whose offered load is closest to {@code load}, at least {@code minNodes}
     */
    public static int nodesFor(List<SimJob> jobs, double load, int gpusPerNode, int minNodes) {
        InvalidSpecException.check(load > 0 && Double.isFinite(load), "loads", load, "a load must be > 0, was %s", load);
        double span = arrivalSpanSeconds(jobs);
        InvalidSpecException.check(span > 0, "jobs", jobs.size(), "the jobs all arrive at once: an offered load cannot be set");
        double gpus = demandGpuSeconds(jobs) / (load * span);
        long n = Math.round(gpus / gpusPerNode);
        return (int) Math.max(minNodes, Math.min(n, 100_000));
    }

    /**
     * @param nodes how many nodes
     * @return a cluster of that many nodes shaped like the bundled default cluster's, in racks of as many nodes as its
     *     racks hold
     */
    public static ClusterModel defaultShapedCluster(int nodes) {
        ClusterModel template = Defaults.cluster();
        Node t = template.nodes().get(0);
        String rack = t.label(ClusterSpec.RACK_LABEL);
        int perRack = 0;
        for (Node n : template.nodes()) {
            if (rack != null && rack.equals(n.label(ClusterSpec.RACK_LABEL))) {
                perRack++;
            }
        }
        String prefix = t.name().contains("-") ? t.name().substring(0, t.name().lastIndexOf('-')) : t.name();
        List<Node> ns = new ArrayList<>(nodes);
        for (int i = 0; i < nodes; i++) {
            Map<String, String> labels = new LinkedHashMap<>(t.labels());
            labels.remove(Node.HOSTNAME_LABEL);
            if (perRack > 0) {
                labels.put(ClusterSpec.RACK_LABEL, "rack-" + (i / perRack));
            }
            ns.add(new Node(prefix + "-" + i, t.cluster(), labels, t.taints(), t.capacity(), t.gpus(), false));
        }
        return new ClusterModel(template.clusters(), ns);
    }

    /** @return GPUs per node of the bundled default cluster */
    public static int defaultGpusPerNode() {
        return (int) Defaults.cluster().nodes().get(0).capacity().gpus();
    }

    /**
     * The Philly windows of one seed.
     *
     * @param eligible the trace's eligible jobs in submission order ({@link #eligible})
     * @param seed the seed that draws the window
     * @param size jobs per window
     * @param maxGpus the most GPUs a job may ask for (sets the fewest nodes)
     * @param loads offered loads wanted, each a cluster size
     * @param checkpoints for each load, which checkpoint settings to run: false (as in the trace) and/or true
     * @param checkpointIntervalSeconds the checkpoint interval given to every job when checkpoints are on
     * @return one workload per (load, checkpoint setting), loads outermost
     */
    public static List<SweepWorkload> phillyWindows(List<SimJob> eligible, long seed, int size, int maxGpus, List<Double> loads,
                                                    List<Boolean> checkpoints, double checkpointIntervalSeconds) {
        int start = windowStart(eligible.size(), size, seed);
        List<SimJob> jobs = window(eligible, start, size);
        double offset = (eligible.get(start).submitMillis() - eligible.get(0).submitMillis()) / 1000.0;
        int perNode = defaultGpusPerNode();
        int minNodes = Math.max(MIN_NODES, (maxGpus + perNode - 1) / perNode);
        List<SweepWorkload> out = new ArrayList<>();
        for (double load : loads) {
            int nodes = nodesFor(jobs, load, perNode, minNodes);
            ClusterModel cluster = defaultShapedCluster(nodes);
            double achieved = offeredLoad(jobs, cluster.totalGpus());
            for (boolean ckpt : checkpoints) {
                List<SimJob> js = ckpt ? io.fairway.sim.trace.Checkpoints.whereMissing(jobs,
                        new Checkpointing(checkpointIntervalSeconds, 0, RESTORE_SECONDS)) : jobs;
                String id = String.format(Locale.ROOT, "philly-s%d-L%s-%s", seed, loadLabel(load), ckpt ? "ckpt" : "nockpt");
                String name = String.format(Locale.ROOT, "Philly jobs %d-%d (%d jobs, load %.2f%s) on %d GPUs", start, start + size - 1, size,
                        achieved, ckpt ? ", checkpoints" : "", cluster.totalGpus());
                SimulationInput in = new SimulationInput(name, cluster, Defaults.queuesFor(cluster, queueKeys(js)), js, List.of());
                out.add(new SweepWorkload(id, "philly", seed, load, achieved, ckpt, start, offset, in));
            }
        }
        return out;
    }

    /**
     * @param seed the generator's seed
     * @return the Themis-like workload of that seed (see the class comment)
     */
    public static SweepWorkload themis(long seed) {
        List<SimJob> generated = new ThemisWorkloadGenerator(THEMIS_GPUS, THEMIS_APPS, THEMIS_LOAD, seed).generate();
        List<SimJob> jobs = new ArrayList<>(generated.size());
        for (SimJob j : generated) {
            jobs.add(splitMembers(j, THEMIS_GPUS_PER_NODE));
        }
        ClusterModel cluster = themisCluster();
        String name = String.format(Locale.ROOT, "Themis-like (%d apps, load %.2f, seed %d) on %d GPUs", THEMIS_APPS, THEMIS_LOAD, seed,
                cluster.totalGpus());
        SimulationInput in = new SimulationInput(name, cluster, Defaults.queuesFor(cluster, queueKeys(jobs)), jobs, List.of());
        return new SweepWorkload("themis-s" + seed, "themis", seed, THEMIS_LOAD, offeredLoad(jobs, cluster.totalGpus()), true, -1, 0, in);
    }

    /**
     * @param id the workload's id
     * @param kind its kind
     * @param trace a trace, run as it is
     * @param seed the seed its runs use
     * @return the trace on the bundled 64-GPU cluster with default queues
     */
    public static SweepWorkload fixed(String id, String kind, Trace trace, long seed) {
        ClusterModel cluster = Defaults.cluster();
        List<SimJob> jobs = trace.jobs();
        boolean ckpt = !jobs.isEmpty() && jobs.stream().allMatch(j -> j.spec().checkpointing() != null);
        double load = offeredLoad(jobs, cluster.totalGpus());
        String name = String.format(Locale.ROOT, "%s (%d jobs) on %d GPUs", trace.source(), jobs.size(), cluster.totalGpus());
        SimulationInput in = new SimulationInput(name, cluster, Defaults.queuesFor(cluster, queueKeys(jobs)), jobs, List.of());
        return new SweepWorkload(id, kind, seed, load, load, ckpt, -1, 0, in);
    }

    /** @return 64 GPUs as {@code fairway themis-repro --gpus 64} builds them: 16 nodes × 4 V100 over PCIe, 2 racks */
    static ClusterModel themisCluster() {
        int nodes = THEMIS_GPUS / THEMIS_GPUS_PER_NODE;
        List<Node> ns = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            ns.add(Node.builder(String.format(Locale.ROOT, "n%03d", i)).label(ClusterSpec.RACK_LABEL, "rack-" + (i * 2 / nodes))
                    .gpus(GpuTopology.pcie4("V100")).capacity(Resources.builder().cpu(64).memoryGiB(512).gpus(THEMIS_GPUS_PER_NODE).build())
                    .build());
        }
        return new ClusterModel(List.of(ClusterSpec.withRacks("default")), ns);
    }

    /** A gang of one pod set of more than {@code perNode} GPUs per member, split into the fewest members dividing its GPUs. */
    static SimJob splitMembers(SimJob j, int perNode) {
        JobSpec s = j.spec();
        if (s.podSets().size() != 1 || s.podSets().get(0).resources().gpus() <= perNode) {
            return j;
        }
        PodSet p = s.podSets().get(0);
        int g = (int) (p.resources().gpus() * p.count());
        int m = (g + perNode - 1) / perNode;
        while (g % m != 0) {
            m++;
        }
        return new SimJob(copy(s, List.of(PodSet.of(p.name(), m, Resources.builder().gpus(g / m).build())), s.checkpointing()),
                j.durationSeconds());
    }

    private static JobSpec copy(JobSpec s, List<PodSet> podSets, Checkpointing c) {
        JobSpec.Builder b = JobSpec.builder(s.id()).namespace(s.namespace()).queue(s.queue()).jobSet(s.jobSet()).owner(s.owner())
                .priority(s.priority()).submitTimeMillis(s.submitTimeMillis()).estimatedSeconds(s.estimatedSeconds())
                .sensitivity(s.sensitivity()).checkpointing(c);
        for (PodSet p : podSets) {
            b.podSet(p);
        }
        return b.build();
    }

    private static Set<String> queueKeys(List<SimJob> jobs) {
        Set<String> keys = new LinkedHashSet<>();
        for (SimJob j : jobs) {
            keys.add(j.spec().localQueueKey());
        }
        return keys;
    }

    /** @param load a load @return it for an id: {@code 1}, {@code 3}, {@code 1.5} */
    static String loadLabel(double load) {
        return load == Math.rint(load) ? Long.toString((long) load) : Double.toString(load);
    }
}
