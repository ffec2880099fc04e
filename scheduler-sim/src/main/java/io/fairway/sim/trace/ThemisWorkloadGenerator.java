package io.fairway.sim.trace;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.Checkpointing;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PlacementSensitivity;
import io.fairway.api.model.Resources;
import io.fairway.sim.SimJob;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A Themis-like workload (Mahajan et al., NSDI 2020): apps that are hyper-parameter searches — many jobs of one model,
 * one GPU count and similar lengths, some stopping early — arriving as a Poisson process, over the models of the
 * Themis placement-sensitivity table (vgg, alexnet, googlenet, inception, resnet). Every job checkpoints (ML training
 * does, and Themis' leases assume it).
 *
 * <p>Per app: model uniform over the table; jobs 1 (40%) or 2–{@code maxJobsPerApp} (60%, uniform); GPUs per job
 * 1, 2, 4, 8 (and 16 on clusters of 128 GPUs or more) with weights 30/30/20/15/5; a base length log-uniform between
 * 10 minutes and 8 hours; each job runs base × U(0.3, 1) (early-stopped configurations). Arrivals are spread so that
 * the work offered is {@code load} × the cluster's GPU-time over the arrival window.
 *
 * <pre>{@code
 * List<SimJob> jobs = new ThemisWorkloadGenerator(64, 200, 1.2, 42).generate();
 * new ThemisWorkloadGenerator(256, 800, 1.2, 42).writeNativeCsv(Path.of("themis-256.csv"));
 * }</pre>
 */
public final class ThemisWorkloadGenerator {
    /** The models of REFERENCE.md's table. */
    public static final String[] MODELS = {"vgg11", "vgg16", "vgg19", "alexnet", "googlenet", "inception3", "inception4", "resnet50",
        "resnet101", "resnet152"};
    /** Seconds between checkpoints of every job. */
    public static final double CHECKPOINT_SECONDS = 300;
    /** Seconds a job takes to restore from a checkpoint. */
    public static final double RESTORE_SECONDS = 20;

    private final long clusterGpus;
    private final int apps;
    private final double load;
    private final long seed;
    private final int maxJobsPerApp;

    /**
     * @param clusterGpus the cluster's GPUs (sizes the arrival rate and the largest jobs)
     * @param apps how many apps
     * @param load work offered ÷ (cluster GPUs × arrival window); above 1 the cluster is contended
     * @param seed the seed
     */
    public ThemisWorkloadGenerator(long clusterGpus, int apps, double load, long seed) {
        this(clusterGpus, apps, load, seed, 12);
    }

    /**
     * @param clusterGpus the cluster's GPUs
     * @param apps how many apps
     * @param load work offered ÷ cluster capacity over the arrival window
     * @param seed the seed
     * @param maxJobsPerApp the most jobs a hyper-parameter search has
     */
    public ThemisWorkloadGenerator(long clusterGpus, int apps, double load, long seed, int maxJobsPerApp) {
        InvalidSpecException.check(clusterGpus > 0, "clusterGpus", clusterGpus, "clusterGpus must be > 0, was %d", clusterGpus);
        InvalidSpecException.check(apps > 0, "apps", apps, "apps must be > 0, was %d", apps);
        InvalidSpecException.check(load > 0, "load", load, "load must be > 0, was %s", load);
        InvalidSpecException.check(maxJobsPerApp >= 2, "maxJobsPerApp", maxJobsPerApp, "maxJobsPerApp must be >= 2, was %d", maxJobsPerApp);
        this.clusterGpus = clusterGpus;
        this.apps = apps;
        this.load = load;
        this.seed = seed;
        this.maxJobsPerApp = maxJobsPerApp;
    }

    /** One app before arrival times are set. */
    private record Draft(String model, int gpus, double[] seconds) {
    }

    /** @return the jobs, in submission order; job set = app, queue {@code default} */
    public List<SimJob> generate() {
        SplittableRandom r = new SplittableRandom(seed);
        List<Draft> drafts = new ArrayList<>();
        double work = 0;
        int[] sizes = clusterGpus >= 128 ? new int[] {1, 2, 4, 8, 16} : new int[] {1, 2, 4, 8};
        double[] weights = clusterGpus >= 128 ? new double[] {30, 30, 20, 15, 5} : new double[] {30, 30, 20, 20};
        for (int a = 0; a < apps; a++) {
            String model = MODELS[r.nextInt(MODELS.length)];
            int gpus = sizes[pick(r, weights)];
            int n = r.nextDouble() < 0.4 ? 1 : 2 + r.nextInt(maxJobsPerApp - 1);
            double base = Math.exp(Math.log(600) + r.nextDouble() * (Math.log(8 * 3600) - Math.log(600)));
            double[] secs = new double[n];
            for (int j = 0; j < n; j++) {
                secs[j] = Math.max(60, Math.round(base * (0.3 + 0.7 * r.nextDouble())));
                work += secs[j] * gpus;
            }
            drafts.add(new Draft(model, gpus, secs));
        }
        double window = work / (load * clusterGpus);
        double meanGap = window / apps;
        List<SimJob> jobs = new ArrayList<>();
        double t = 0;
        for (int a = 0; a < drafts.size(); a++) {
            Draft d = drafts.get(a);
            String app = String.format(Locale.ROOT, "app-%04d", a);
            long submit = Math.round(t * 1000);
            for (int j = 0; j < d.seconds().length; j++) {
                GangShape shape = GangShape.forGpus(d.gpus());
                JobSpec spec = JobSpec.builder(app + "-" + j).queue("default").jobSet(app).submitTimeMillis(submit)
                        .members(shape.members(), Resources.builder().gpus(shape.gpusPerMember()).build())
                        .estimatedSeconds(d.seconds()[j]).sensitivity(PlacementSensitivity.forModel(d.model()))
                        .checkpointing(new Checkpointing(CHECKPOINT_SECONDS, 0, RESTORE_SECONDS)).build();
                jobs.add(new SimJob(spec, d.seconds()[j]));
            }
            t += -Math.log(1 - r.nextDouble()) * meanGap;
        }
        return jobs;
    }

    private static int pick(SplittableRandom r, double[] weights) {
        double total = 0;
        for (double w : weights) {
            total += w;
        }
        double x = r.nextDouble() * total;
        for (int i = 0; i < weights.length; i++) {
            x -= weights[i];
            if (x < 0) {
                return i;
            }
        }
        return weights.length - 1;
    }

    /**
     * Writes the workload as a native trace ({@link NativeTraceReader}), readable by {@code fairway simulate --trace}.
     *
     * @param file the CSV file
     * @return the jobs written
     */
    public List<SimJob> writeNativeCsv(Path file) {
        List<SimJob> jobs = generate();
        List<List<String>> rows = new java.util.ArrayList<>();
        for (SimJob j : jobs) {
            JobSpec s = j.spec();
            String model = "";
            for (String m : MODELS) {
                if (PlacementSensitivity.forModel(m).equals(s.sensitivity())) {
                    model = m;
                    break;
                }
            }
            rows.add(List.of(s.id(), String.format(Locale.ROOT, "%.3f", s.submitTimeMillis() / 1000.0), String.format(Locale.ROOT, "%.0f", j.durationSeconds()),
                    String.valueOf(s.podSets().get(0).count()), String.valueOf(s.podSets().get(0).resources().gpus()), s.queue(), s.jobSet(), model,
                    String.format(Locale.ROOT, "%.0f", CHECKPOINT_SECONDS), "0", String.format(Locale.ROOT, "%.0f", RESTORE_SECONDS)));
        }
        io.fairway.sim.report.CsvFiles.write(file, List.of("id", "submit_seconds", "duration_seconds", "members", "gpus_per_member", "queue", "job_set",
                "model", "checkpoint_interval_seconds", "checkpoint_cost_seconds", "restore_seconds"), rows);
        return jobs;
    }
}
