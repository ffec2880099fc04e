package io.fairway.testkit;

import io.fairway.api.job.Checkpointing;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.Resources;
import io.fairway.testkit.FairwayArbitraries.JobTemplate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Streams of jobs that keep arriving while the cluster works, for the no-starvation property under continuous
 * arrival ({@link ConformanceChecks#noStarvationUnderContinuousArrival}). A round stands for
 * {@link #ROUND_SECONDS} seconds: a job announcing {@code estimatedSeconds} runs {@code ceil(estimatedSeconds / 60)}
 * rounds once started (estimates are honest), a job without an estimate runs a drawn number of rounds.
 *
 * <p>A stream has two parts. A <em>background</em> of short jobs (1 member of 1–4 GPUs, 1–3 minutes) arrives every
 * round for 15–30 rounds (0 to 1–8 jobs a round), mostly into one "busy" queue, at a rate that ranges from a light load to more than the
 * cluster can run — a steady stream of short work, which is what starves a long or a large job under a policy that
 * always prefers short jobs, or one queue. The <em>foreground</em> is 1–6 other jobs arriving at any of those rounds
 * in any queue: gangs of 1–2 members with 1, 2 or 4 GPUs, some elastic (they may run with one member), most
 * announcing a long run (5–15 minutes) or none, some checkpointing. Every job has priority 0: a job overtaken by
 * higher-priority work is not starved in the sense checked here.
 */
public final class ContinuousArrivals {
    /** The simulated seconds one round stands for. */
    public static final int ROUND_SECONDS = 60;

    private ContinuousArrivals() {
    }

    /**
     * One job of a stream.
     *
     * @param round the round before which it is submitted
     * @param job the job (its estimate is honest: {@code runRounds} rounds)
     * @param runRounds the rounds it runs once started, until it finishes
     */
    public record Arrival(int round, JobTemplate job, int runRounds) {
        /** Validates. */
        public Arrival {
            if (round < 0 || runRounds < 1) {
                throw new IllegalArgumentException("arrival: round must be >= 0 and runRounds >= 1, were " + round + ", " + runRounds);
            }
        }

        /** @return the GPUs it holds at full size */
        public long gpus() {
            long g = 0;
            for (PodSet p : job.podSets()) {
                g += (long) p.count() * p.resources().gpus();
            }
            return g;
        }
    }

    /**
     * A stream of arrivals, in submission order.
     *
     * @param arrivals the jobs, sorted by round (stable: jobs of one round keep their order)
     */
    public record Stream(List<Arrival> arrivals) {
        /** Sorts and copies. */
        public Stream {
            List<Arrival> l = new ArrayList<>(arrivals);
            l.sort(Comparator.comparingInt(Arrival::round));
            arrivals = List.copyOf(l);
        }

        /** @return the round of the last arrival */
        public int lastRound() {
            return arrivals.isEmpty() ? 0 : arrivals.get(arrivals.size() - 1).round();
        }

        /** @return the longest run of any job, in rounds */
        public int maxRunRounds() {
            return arrivals.stream().mapToInt(Arrival::runRounds).max().orElse(1);
        }

        /** @return the GPU-rounds of all the jobs at full size */
        public long gpuRounds() {
            return arrivals.stream().mapToLong(a -> a.gpus() * a.runRounds()).sum();
        }
    }

    /**
     * A job announcing {@code seconds} (0: unknown) that runs {@code ceil(seconds / 60)} rounds, or {@code rounds}
     * when it announces nothing.
     *
     * @param round the arrival round @param job the job @param seconds the estimate @param rounds rounds when unknown
     * @return the arrival
     */
    public static Arrival arrival(int round, JobTemplate job, double seconds, int rounds) {
        int run = seconds > 0 ? (int) Math.ceil(seconds / ROUND_SECONDS) : rounds;
        return new Arrival(round, job.withEstimate(seconds, job.checkpointing()), Math.max(1, run));
    }

    /**
     * @param queue the queue index @param members members @param gpus GPUs per member
     * @return a priority-0 job of one pod set of that shape
     */
    public static JobTemplate job(int queue, int members, int gpus) {
        return new JobTemplate(queue, 0, List.of(PodSet.of("ps0", members, Resources.builder().gpus(gpus).cpu(4).memoryGiB(16).build())));
    }

    /** @return streams for {@link FairPolicyConformance}'s world: two 8-GPU nodes shared by 2–3 queues */
    public static Arbitrary<Stream> streams() {
        Arbitrary<Integer> rounds = Arbitraries.integers().between(15, 30);
        Arbitrary<Integer> busyQueue = Arbitraries.integers().between(0, 2);
        Arbitrary<Integer> burst = Arbitraries.integers().between(1, 8);
        Arbitrary<List<Integer>> seeds = Arbitraries.integers().between(0, Integer.MAX_VALUE).list().ofSize(4);
        Arbitrary<List<Foreground>> foreground = foreground().list().ofMinSize(1).ofMaxSize(6);
        return Combinators.combine(rounds, busyQueue, burst, seeds, foreground).as(ContinuousArrivals::stream);
    }

    /** A foreground job before its arrival round is fixed (a fraction of the stream's length). */
    private record Foreground(double at, int queue, int members, int gpus, boolean elastic, double seconds, int rounds, Checkpointing checkpointing) {
    }

    private static Arbitrary<Foreground> foreground() {
        Arbitrary<Double> seconds = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(0.0)),
                Tuple.of(3, Arbitraries.integers().between(5, 15).map(m -> m * 60.0)));
        return Combinators.combine(Arbitraries.doubles().between(0, 1), Arbitraries.integers().between(0, 2),
                        Arbitraries.integers().between(1, 2), Arbitraries.of(1, 2, 4), Arbitraries.of(false, false, true),
                        seconds, Arbitraries.integers().between(1, 8), FairwayArbitraries.checkpointings().injectNull(0.7))
                .as(Foreground::new);
    }

    /**
     * The background is drawn from a small deterministic generator seeded by jqwik (so a stream of 30 rounds does not
     * need 30 generated lists); jqwik shrinks the stream's length, burst size and foreground.
     */
    private static Stream stream(int rounds, int busyQueue, int burst, List<Integer> seeds, List<Foreground> fg) {
        java.util.SplittableRandom r = new java.util.SplittableRandom(((long) seeds.get(0) << 31) ^ seeds.get(1) ^ ((long) seeds.get(2) << 13) ^ seeds.get(3));
        List<Arrival> l = new ArrayList<>();
        int[] gpuChoices = {1, 2, 4, 4, 4};
        for (int round = 0; round < rounds; round++) {
            int n = r.nextInt(burst + 1);
            for (int i = 0; i < n; i++) {
                int queue = r.nextInt(4) == 0 ? r.nextInt(3) : busyQueue;
                double seconds = (1 + r.nextInt(3)) * (double) ROUND_SECONDS;
                l.add(arrival(round, job(queue, 1, gpuChoices[r.nextInt(gpuChoices.length)]), seconds, 1));
            }
        }
        for (Foreground f : fg) {
            int round = (int) Math.min(rounds - 1, Math.floor(f.at() * rounds));
            JobTemplate t = job(f.queue(), f.members(), f.gpus());
            if (f.elastic() && f.members() > 1) {
                t = new JobTemplate(t.queue(), 0, List.of(t.podSets().get(0).withMinCount(1)));
            }
            l.add(arrival(round, t.withEstimate(0, f.checkpointing()), f.seconds(), f.rounds()));
        }
        return new Stream(l);
    }
}
