package io.fairway.sim.cli;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PlacementSensitivity;
import io.fairway.api.model.Resources;
import io.fairway.core.snapshot.PlacementStrategy;
import io.fairway.sim.ClusterModel;
import io.fairway.sim.SimJob;
import io.fairway.sim.SimulationInput;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.SimulationResult;
import io.fairway.sim.config.Defaults;
import io.fairway.sim.report.ComparisonTable;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fairway topology-study}: topology-aware placement against first-fit on a placement-sensitive workload
 * (the topology study of docs/concepts/topology.md). The workload is generated from the seed: data-parallel gangs of
 * one GPU per member (1, 2, 4, 8 or 16
 * members), a third of them vgg-like (vgg11/16/19, which slow down the most when spread), the rest resnet, inception
 * and alexnet, with the Themis placement sensitivities of REFERENCE.md; Poisson arrivals at the given load on the
 * bundled cluster (8 nodes of 8 V100 in 2 racks). Every policy runs under both strategies; the table adds the
 * share of multi-GPU placements at their best possible locality and the time-averaged fraction of free GPUs
 * stranded on nodes that cannot host an 8-GPU job.
 *
 * <pre>
 * ./fairway topology-study --jobs 400 --load 0.9 --seed 1
 * </pre>
 */
@Command(name = "topology-study", mixinStandardHelpOptions = true,
        description = "Topology-aware placement vs first-fit on a generated placement-sensitive workload (a third vgg-like gangs) "
                + "on the bundled 64-GPU cluster: average JCT, share of multi-GPU jobs at their best locality, fragmentation.")
public final class TopologyStudyCommand implements Callable<Integer> {
    private static final String[] VGG = {"vgg11", "vgg16", "vgg19"};
    private static final String[] OTHERS = {"resnet50", "resnet101", "resnet152", "inception3", "inception4", "alexnet"};
    private static final int[] SIZES = {1, 2, 4, 8, 16};
    private static final double[] WEIGHTS = {15, 25, 25, 20, 15};

    @Spec
    private CommandSpec spec;

    @Option(names = "--jobs", defaultValue = "400", description = "Jobs to generate. Default: ${DEFAULT-VALUE}.")
    int jobs;

    @Option(names = "--load", defaultValue = "0.9", description = "Offered load (work ÷ cluster GPU-time over the arrival window). Default: ${DEFAULT-VALUE}.")
    double load;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the workload and the scheduler. Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--policy", split = ",", defaultValue = "best-effort-fifo", description = "Policies, comma-separated. Default: ${DEFAULT-VALUE}.")
    List<String> policies;

    @Mixin
    MetricsJsonOption json = new MetricsJsonOption();

    @Mixin
    ProgressOption progress = new ProgressOption();

    /** Created by picocli. */
    public TopologyStudyCommand() {
    }

    /**
     * @param clusterGpus GPUs of the cluster the load is measured against
     * @param n jobs
     * @param load offered load
     * @param seed the seed
     * @return the jobs: one GPU per member, a third vgg-like
     */
    public static List<SimJob> workload(long clusterGpus, int n, double load, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int[] gpus = new int[n];
        double[] secs = new double[n];
        String[] models = new String[n];
        double work = 0;
        for (int i = 0; i < n; i++) {
            double u = r.nextDouble() * 100;
            int k = 0;
            while (k < WEIGHTS.length - 1 && u >= WEIGHTS[k]) {
                u -= WEIGHTS[k];
                k++;
            }
            gpus[i] = SIZES[k];
            models[i] = i % 3 == 0 ? VGG[r.nextInt(VGG.length)] : OTHERS[r.nextInt(OTHERS.length)];
            secs[i] = Math.round(Math.exp(Math.log(600) + r.nextDouble() * (Math.log(4 * 3600) - Math.log(600))));
            work += secs[i] * gpus[i];
        }
        double meanGap = work / (load * clusterGpus) / n;
        List<SimJob> out = new ArrayList<>();
        double t = 0;
        for (int i = 0; i < n; i++) {
            JobSpec s = JobSpec.builder(String.format(Locale.ROOT, "job-%04d", i)).queue("default").submitTimeMillis(Math.round(t * 1000))
                    .members(gpus[i], Resources.builder().gpus(1).build()).estimatedSeconds(secs[i])
                    .sensitivity(PlacementSensitivity.forModel(models[i])).build();
            out.add(new SimJob(s, secs[i]));
            t += -Math.log(1 - r.nextDouble()) * meanGap;
        }
        return out;
    }

    @Override
    public Integer call() {
        if (jobs < 1 || !(load > 0)) {
            throw new FairwayCommand.UserException("--jobs must be >= 1 and --load > 0");
        }
        PrintWriter out = spec.commandLine().getOut();
        ClusterModel cluster = Defaults.cluster();
        List<SimJob> js = workload(cluster.totalGpus(), jobs, load, seed);
        SimulationInput input = new SimulationInput("placement-sensitive workload", cluster, Defaults.queuesFor(cluster, List.of("default/default")),
                js, List.of());
        List<String> ps = Runs.policies(policies, Map.of());
        out.println("Topology study: " + jobs + " gangs (one GPU per member; a third vgg-like), load " + load + ", seed " + seed + ", on "
                + cluster.nodes().size() + " nodes (" + cluster.totalGpus() + " GPUs, 2 racks)");
        out.flush();
        List<SimulationResult> results = new ArrayList<>();
        SimulationOptions o = SimulationOptions.DEFAULTS.withSeed(seed);
        for (String p : ps) {
            for (PlacementStrategy s : List.of(PlacementStrategy.TOPOLOGY_AWARE, PlacementStrategy.FIRST_FIT)) {
                SimulationResult r = Runs.run(input, List.of(p), o.withPlacement(s), spec.commandLine().getErr(), progress.show()).get(0);
                results.add(Runs.renamed(r, p + "/" + RunOptions.name(s)));
            }
        }
        out.println();
        out.print(ComparisonTable.format(results, true));
        out.println();
        for (int i = 0; i + 1 < results.size(); i += 2) {
            double aware = results.get(i).metrics().avgJctSeconds();
            double ff = results.get(i + 1).metrics().avgJctSeconds();
            out.println(String.format(Locale.ROOT, "%s: topology-aware average JCT %s vs first-fit %s (%.1f%% lower)", ps.get(i / 2),
                    ComparisonTable.duration(aware), ComparisonTable.duration(ff), 100 * (1 - aware / ff)));
        }
        json.write(out, results);
        out.flush();
        return 0;
    }
}
