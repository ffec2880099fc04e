package io.fairway.bench;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PlacementSensitivity;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.Policies;
import io.fairway.core.RoundResult;
import io.fairway.core.Rounds;
import io.fairway.core.Scheduler;
import io.fairway.core.snapshot.Snapshot;
import io.fairway.policies.themis.PartialAllocationAuction;
import io.fairway.policies.themis.PartialAllocationAuction.Bid;
import io.fairway.policies.themis.PartialAllocationAuction.Method;
import io.fairway.policies.themis.PartialAllocationAuction.Outcome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One Themis auction: 1,000 apps bid for 256 offered GPUs of a 2-rack cluster (2 racks × 16 nodes × 8 NVSwitch GPUs).
 *
 * <ul>
 *   <li><b>winnerDetermination</b> ({@code method} = EXACT | GREEDY): {@link PartialAllocationAuction#solve} alone on
 *       1,000 bids — the proportional-fair allocation and every winner's hidden-payment fraction. Bids come from the
 *       same finish-time model as the policy's agents: each app has 1–8 jobs of 1–32 GPUs of a model of the Themis
 *       table, a job's speed on k GPUs is its placement factor on this topology (one node → 1.0, one rack → the
 *       model's cross-machine factor, two racks → its cross-rack factor), and its valuation is
 *       {@code T_sh(no GPUs) ÷ T_sh(bundle)} over one 10-minute lease. The trial setup writes the greedy method's
 *       gap to the exact optimum of Σ log v to {@code target/themis-auction-gap.txt}.</li>
 *   <li><b>themisRound</b>: a whole {@code Rounds.run} of the {@code themis} policy on a snapshot with those 1,000 apps
 *       pending (3,000-odd jobs) and all 256 GPUs free: ρ estimates, placement searches for bids, the auction,
 *       admissions and the core's validation.</li>
 * </ul>
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ThemisAuction -f 1 -wi 15 -i 10}. The warm-up is long
 * because the 10,000-app size of {@code themisRound} takes about twelve one-second iterations to settle (the first
 * ones are 3–4× slower); with fewer, its mean reports the warm-up rather than a round.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 15, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ThemisAuctionBenchmark {
    static final int APPS = 1_000;
    static final int GPUS = 256;
    static final int NODE_GPUS = 8;
    static final int RACK_GPUS = 128;
    static final double LEASE_SECONDS = 600;
    static final String[] MODELS = {"vgg11", "vgg16", "vgg19", "alexnet", "googlenet", "inception3", "inception4", "resnet50",
        "resnet101", "resnet152"};
    static final int[] SIZES = {1, 2, 4, 8, 16, 32};

    /** One app of the workload: its jobs' GPUs, work (s) and model. */
    record App(String name, int[] gpus, double[] work, String model) {
    }

    /** The 1,000 apps (seeded). */
    static List<App> apps(long seed) {
        return apps(seed, APPS);
    }

    /** {@code n} apps (seeded; the first 1,000 of any {@code n} are those of {@link #apps(long)} only for n = 1,000). */
    static List<App> apps(long seed, int n) {
        SplittableRandom r = new SplittableRandom(seed);
        List<App> apps = new ArrayList<>();
        for (int a = 0; a < n; a++) {
            int jobs = 1 + r.nextInt(8);
            int g = SIZES[r.nextInt(SIZES.length)];
            double base = 600 + r.nextInt(4 * 3600);
            int[] gs = new int[jobs];
            double[] ws = new double[jobs];
            for (int j = 0; j < jobs; j++) {
                gs[j] = g;
                ws[j] = base * (0.5 + r.nextDouble());
            }
            apps.add(new App(String.format(Locale.ROOT, "app-%04d", a), gs, ws, MODELS[r.nextInt(MODELS.length)]));
        }
        return apps;
    }

    static double factor(PlacementSensitivity s, int gpus) {
        return gpus <= NODE_GPUS ? 1.0 : gpus <= RACK_GPUS ? s.sameRack() : s.crossRack();
    }

    /**
     * An app's bid, as a Themis agent values it: jobs start shortest first, each adds its GPUs; T_sh over one lease,
     * then its fair share (GPUs ÷ apps) afterwards, never before its longest job ends.
     */
    static Bid bid(App app, int offered) {
        PlacementSensitivity s = PlacementSensitivity.forModel(app.model());
        int n = app.gpus().length;
        double fair = Math.min((double) GPUS / APPS, sum(app.gpus()));
        double r = 0;
        for (int j = 0; j < n; j++) {
            r += app.work()[j] * app.gpus()[j];
        }
        Integer[] order = new Integer[n];
        for (int j = 0; j < n; j++) {
            order[j] = j;
        }
        java.util.Arrays.sort(order, (x, y) -> Double.compare(app.work()[x], app.work()[y]));
        List<Integer> sizes = new ArrayList<>(List.of(0));
        List<Double> vals = new ArrayList<>(List.of(1.0));
        double none = shared(r, 0, LEASE_SECONDS + max(app.work()), fair);
        double rate = 0;
        int cost = 0;
        boolean[] started = new boolean[n];
        for (int idx = 0; idx < n; idx++) {
            int j = order[idx];
            if (cost + app.gpus()[j] > offered) {
                break;
            }
            cost += app.gpus()[j];
            rate += app.gpus()[j] * factor(s, app.gpus()[j]);
            started[j] = true;
            double bound = 0;
            for (int k = 0; k < n; k++) {
                bound = Math.max(bound, started[k] ? app.work()[k] / factor(s, app.gpus()[k]) : LEASE_SECONDS + app.work()[k]);
            }
            double v = none / shared(r, rate, bound, fair);
            if (v > vals.get(vals.size() - 1)) {
                sizes.add(cost);
                vals.add(v);
            }
        }
        return Bid.of(app.name(), sizes.stream().mapToInt(Integer::intValue).toArray(), vals.stream().mapToDouble(Double::doubleValue).toArray());
    }

    static double shared(double r, double rate, double bound, double fair) {
        double fluid = rate > 0 && rate * LEASE_SECONDS >= r ? r / rate : LEASE_SECONDS + (r - rate * LEASE_SECONDS) / fair;
        return Math.max(fluid, bound);
    }

    static int sum(int[] a) {
        int s = 0;
        for (int x : a) {
            s += x;
        }
        return s;
    }

    static double max(double[] a) {
        double m = 0;
        for (double x : a) {
            m = Math.max(m, x);
        }
        return m;
    }

    /** The bids of the 1,000 apps. */
    @State(Scope.Benchmark)
    public static class Bids {
        /** Winner determination. */
        @Param({"EXACT", "GREEDY"})
        public Method method;
        List<Bid> bids;

        /** Builds the bids; records the greedy gap. */
        @Setup(Level.Trial)
        public void setUp() throws IOException {
            bids = new ArrayList<>();
            for (App a : apps(42)) {
                bids.add(bid(a, GPUS));
            }
            if (method == Method.GREEDY) {
                StringBuilder sb = new StringBuilder();
                for (long seed = 1; seed <= 5; seed++) {
                    List<Bid> bs = new ArrayList<>();
                    for (App a : apps(seed)) {
                        bs.add(bid(a, GPUS));
                    }
                    Outcome ex = PartialAllocationAuction.solve(bs, GPUS, Method.EXACT);
                    Outcome gr = PartialAllocationAuction.solve(bs, GPUS, Method.GREEDY);
                    double maxC = 0;
                    for (int i = 0; i < bs.size(); i++) {
                        if (ex.allocation()[i] > 0 && gr.allocation()[i] > 0) {
                            maxC = Math.max(maxC, Math.abs(ex.fraction()[i] - gr.fraction()[i]));
                        }
                    }
                    sb.append(String.format(Locale.ROOT, "seed %d: exact sum log v = %.6f, greedy = %.6f, gap = %.4f%% "
                                    + "(product of valuations %.4f%% lower); winners exact %d, greedy %d; max |c exact - c greedy| = %.4f%n",
                            seed, ex.objective(), gr.objective(), 100 * (ex.objective() - gr.objective()) / ex.objective(),
                            100 * (1 - Math.exp(gr.objective() - ex.objective())), count(ex), count(gr), maxC));
                }
                Path out = Path.of("target", "themis-auction-gap.txt");
                Files.createDirectories(out.getParent());
                Files.writeString(out, sb.toString(), StandardCharsets.UTF_8);
            }
        }

        static int count(Outcome o) {
            int n = 0;
            for (int a : o.allocation()) {
                n += a > 0 ? 1 : 0;
            }
            return n;
        }
    }

    /**
     * A snapshot of a 2-rack cluster with the apps pending: {@code 1000x256} (1,000 apps, 256 GPUs) or
     * {@code 10000x4096} (10,000 apps, 4,096 GPUs).
     */
    @State(Scope.Benchmark)
    public static class Round {
        /** Apps × GPUs. */
        @Param({"1000x256", "10000x4096"})
        public String size;
        /** {@code defaults}, or {@code paper}: the per-job term and the overdue bound off (the behaviour of the Themis paper). */
        @Param({"defaults"})
        public String config;
        Snapshot snapshot;
        SchedulingPolicy themis;

        /** Builds the scheduler and takes its snapshot. */
        @Setup(Level.Trial)
        public void setUp() {
            int nApps = Integer.parseInt(size.substring(0, size.indexOf('x')));
            int gpus = Integer.parseInt(size.substring(size.indexOf('x') + 1));
            Scheduler.Builder b = Scheduler.builder().clock(() -> 3_600_000L).seed(1).policy("best-effort-fifo")
                    .cluster(ClusterSpec.withRacks("default")).flavor(ResourceFlavor.of("default"))
                    .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().gpus(gpus).build()).build())
                    .localQueue(new LocalQueue("default", "lq", "cq"));
            for (int rack = 0; rack < 2; rack++) {
                for (int n = 0; n < gpus / 2 / NODE_GPUS; n++) {
                    b.node(Node.builder("r" + rack + "-n" + n).label(ClusterSpec.RACK_LABEL, "r" + rack).gpus(GpuTopology.nvSwitch8("H100")).build());
                }
            }
            Scheduler s = b.build();
            SplittableRandom r = new SplittableRandom(7);
            List<JobSpec> jobs = new ArrayList<>();
            for (App a : apps(42, nApps)) {
                long submit = r.nextLong(3_600_000L);
                for (int j = 0; j < a.gpus().length; j++) {
                    int g = a.gpus()[j];
                    int members = Math.max(1, g / NODE_GPUS);
                    jobs.add(JobSpec.builder(a.name() + "-" + j).queue("lq").jobSet(a.name()).submitTimeMillis(submit)
                            .podSet(PodSet.of("main", members, Resources.builder().gpus(g / members).build())).estimatedSeconds(a.work()[j])
                            .sensitivity(PlacementSensitivity.forModel(a.model())).build());
                }
            }
            s.submitAll(jobs);
            snapshot = s.snapshot();
            themis = Policies.create("themis", config.equals("paper") ? Map.of("perJob", "false", "overdueFactor", "infinite") : Map.of());
        }
    }

    /**
     * @param b the bids
     * @return the auction's outcome
     */
    @Benchmark
    public Outcome winnerDetermination(Bids b) {
        return PartialAllocationAuction.solve(b.bids, GPUS, b.method);
    }

    /**
     * @param r the snapshot
     * @return the round
     */
    @Benchmark
    public RoundResult themisRound(Round r) {
        return Rounds.run(r.snapshot, r.themis);
    }
}
