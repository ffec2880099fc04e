package io.fairway.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Pins the decisions of preempting rounds: a seeded, contended scenario (ClusterQueues in cohorts that lend to
 * each other, every preemption setting Kueue offers, jobs of 1-16 GPUs with random priorities, churn between
 * rounds) is run through the public API, and the transcript of every round — each admission with its placement,
 * each preemption with its reason, every pending reason — must hash to the value recorded before the preemption
 * search was optimised. A change in any victim, admission, placement or reason changes the hash. Running the same
 * scenario twice must give the same transcript (determinism).
 *
 * <p>The hashed transcript lists every reason that changed in full, as rounds decided from scratch list them; the
 * engine's remembering rounds (the default) leave a job whose answer is the same with the reason as of the round that
 * found it, so they list fewer. They must make the same decisions: the scenario is run that way too, and its
 * admissions and preemptions must be the hashed run's, line for line.
 */
class PreemptionDecisionsTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fair-sharing", "best-effort-fifo", "priority", "strict-fifo"})
    void preemptingRoundsDecideAsBefore(String policy) {
        // Fairway's own cohort rules decide exactly as before Kueue's became the default
        Transcript first = decidesAsRecorded(policy, PreemptionPolicy.CohortRules.FAIRWAY_STRICT, EXPECTED.get(policy));
        assertThat(first.refusedSearches).as("and searches that find no victims").isGreaterThan(20);
    }

    /**
     * Runs the scenario twice and once with remembering rounds under {@code rules}: the same decisions each time, with
     * preemptions, and the transcript's hash {@code expected}.
     */
    private static Transcript decidesAsRecorded(String policy, PreemptionPolicy.CohortRules rules, String expected) {
        Transcript first = run(policy, 7, false, rules);
        Transcript again = run(policy, 7, false, rules);
        assertThat(again.text).as("same snapshots, configuration and seed: same decisions").isEqualTo(first.text);
        assertThat(decisions(run(policy, 7, false, first.rules(), true).text)).as("remembering rounds decide alike")
                .isEqualTo(decisions(first.text));
        assertThat(first.preemptions).as("the scenario exercises preemption").isGreaterThan(20);
        assertThat(first.sha256).as(policy + ": " + first.preemptions + " preemptions, " + first.refusedSearches + " refused")
                .isEqualTo(expected);
        return first;
    }

    /** SHA-256 of the transcripts, recorded with the search as it was before the optimisation (issue #19). */
    private static final Map<String, String> EXPECTED = Map.of(
            "fair-sharing", "de767420f83711d6ff11394f90c831b4febd737ad92fc046a34371b7ec133c03",
            "best-effort-fifo", "d41a35599c7b3ba69914ea796a146817c22099c550d8f377c0cf9b2204950e19",
            "priority", "767320e26a54637bcac885d23c3a01a76b7cb0ebfc3d19def0b4e7ab7712a932",
            "strict-fifo", "2ee1d8fa61bfb8cd61734277c41821b50d75eb9a143cbeae5d56d2f8dacc2977");

    /**
     * The same scenario under Kueue's cohort rules (the default), recorded when they became the default: reclaim
     * candidates are all (lower-priority) jobs of queues that borrow, taken while their queue borrows; a preemptor
     * whose victims are all in its own queue may end borrowing; a lender that cannot reclaim keeps its unused quota for
     * its waiting job (see docs/concepts/quota.md).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fair-sharing", "best-effort-fifo", "priority", "strict-fifo"})
    void preemptingRoundsUnderKueueRulesDecideAsRecorded(String policy) {
        decidesAsRecorded(policy, PreemptionPolicy.CohortRules.KUEUE, EXPECTED_KUEUE.get(policy));
    }

    private static final Map<String, String> EXPECTED_KUEUE = Map.of(
            "fair-sharing", "45e5cac99488cb33e7c1867f7490781c15cba68b53116fe49f22b87ea120e9b7",
            "best-effort-fifo", "50be90d5559090ab5d1aee0025749ced9bc8bea5db28240381236031f6d77fb2",
            "priority", "00b2799a15eca3f6075938ddd3a21b03df28461b4aa6e0cedca3c667dcafc1f5",
            "strict-fifo", "dd09d1a726275c43cc451c7741b5c4ba1fc56050a01b7719ed90d62eaa72623c");

    record Transcript(String text, String sha256, int preemptions, int refusedSearches, PreemptionPolicy.CohortRules rules) {
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fair-sharing", "best-effort-fifo"})
    void plansOfThePreemptionSearchPassFullValidation(String policy) {
        validatedPreemptions = 0;
        run(policy, 11, true);
        assertThat(validatedPreemptions).isGreaterThan(20);
    }

    private static int validatedPreemptions;

    static Transcript run(String policy, long seed) {
        return run(policy, seed, false);
    }

    static Transcript run(String policy, long seed, boolean validate) {
        return run(policy, seed, validate, PreemptionPolicy.CohortRules.KUEUE);
    }

    /** @return the transcript's decision lines (rounds, admissions, preemptions), without the pending reasons */
    private static String decisions(String text) {
        StringBuilder b = new StringBuilder();
        for (String line : text.split("\n")) {
            if (!line.startsWith("wait ")) {
                b.append(line).append('\n');
            }
        }
        return b.toString();
    }

    static Transcript run(String policy, long seed, boolean validate, PreemptionPolicy.CohortRules rules) {
        return run(policy, seed, validate, rules, false);
    }

    /**
     * @param remember true for the engine's remembering rounds, false for rounds from scratch (every changed number of
     *     a reason listed: the transcript the hashes were recorded on)
     */
    static Transcript run(String policy, long seed, boolean validate, PreemptionPolicy.CohortRules rules, boolean remember) {
        AtomicLong now = new AtomicLong(1_000);
        Scheduler.Builder b = Scheduler.builder().policy(policy).clock(now::get).seed(seed).rememberRounds(remember)
                .cluster(new ClusterSpec(Node.DEFAULT_CLUSTER, List.of(ClusterSpec.RACK_LABEL)))
                .flavor(ResourceFlavor.of("default"));
        for (int i = 0; i < 48; i++) {
            b.node(Node.builder("node-" + i).capacity(Resources.builder().cpu(128).memoryGiB(1024).build())
                    .gpus(GpuTopology.nvSwitch8("H100")).label(ClusterSpec.RACK_LABEL, "r" + i / 8).build());
        }
        PreemptionPolicy.WithinClusterQueue[] within = PreemptionPolicy.WithinClusterQueue.values();
        PreemptionPolicy.ReclaimWithinCohort[] reclaim = PreemptionPolicy.ReclaimWithinCohort.values();
        PreemptionPolicy.BorrowWithinCohort[] borrow = PreemptionPolicy.BorrowWithinCohort.values();
        int queues = 12;
        for (int c = 0; c < 3; c++) {
            b.cohort(Cohort.of("co-" + c, null));
        }
        for (int q = 0; q < queues; q++) {
            // most queues take Kueue's common setting (LowerPriority, Any); the others cover every combination
            PreemptionPolicy p = q < 6
                    ? new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY, PreemptionPolicy.ReclaimWithinCohort.ANY, null)
                    : new PreemptionPolicy(within[q % 3], reclaim[(q / 3) % 3], borrow[q % 2]);
            p = p.withCohortRules(rules);
            b.clusterQueue(ClusterQueue.builder("cq-" + q).cohort("co-" + q % 3).preemption(p)
                    .quota("default", Resources.builder().cpu(32 * 16).memoryGiB(32 * 128).gpus(32).build()).build());
            b.localQueue(new LocalQueue(JobSpec.DEFAULT_NAMESPACE, "lq-" + q, "cq-" + q));
        }
        Scheduler s = b.build();
        SplittableRandom random = new SplittableRandom(seed);
        StringBuilder text = new StringBuilder();
        int[] next = {0};
        int preemptions = 0;
        int refused = 0;
        List<JobSpec> batch = new ArrayList<>();
        for (int i = 0; i < 700; i++) {
            batch.add(job(random, next[0]++, queues, now.get()));
        }
        s.submitAll(batch);
        List<String> running = new ArrayList<>();
        for (int round = 0; round < 14; round++) {
            if (validate) {
                // the plan the engine's preemption search makes is accepted as a whole by the full validation it skips
                io.fairway.core.snapshot.Snapshot snap = s.snapshot();
                RoundResult dry = io.fairway.core.Rounds.run(snap, io.fairway.core.Policies.create(policy, Map.of()));
                List<Preempt> ps = dry.decisions().stream().filter(d -> d instanceof Preempt).map(d -> (Preempt) d).toList();
                List<Admit> as = dry.decisions().stream().filter(d -> d instanceof Admit).map(d -> (Admit) d).toList();
                io.fairway.core.validation.Validator.Outcome v = io.fairway.core.validation.Validator.validate(snap, ps, as);
                assertThat(v.refused()).as("round " + round).isEmpty();
                assertThat(v.admissions()).hasSize(as.size());
                validatedPreemptions += ps.size();
            }
            RoundResult r = s.runRound();
            text.append("round ").append(round).append('\n');
            for (Decision d : r.decisions()) {
                if (d instanceof Admit a) {
                    running.add(a.jobId());
                    text.append("admit ").append(a.jobId()).append(' ').append(a.clusterQueue()).append(' ').append(a.counts())
                            .append(' ').append(a.placement().members()).append('\n');
                } else if (d instanceof Preempt p) {
                    running.remove(p.jobId());
                    preemptions++;
                    text.append("preempt ").append(p.jobId()).append(": ").append(p.reason()).append('\n');
                } else {
                    text.append(d).append('\n');
                }
            }
            for (Map.Entry<String, PendingReason> e : new TreeMap<>(r.pendingReasons()).entrySet()) {
                if (e.getValue().message().contains("may preempt makes room")) {
                    refused++;
                }
                text.append("wait ").append(e.getKey()).append(' ').append(e.getValue().code()).append(' ').append(e.getValue().message()).append('\n');
            }
            // churn: a seeded 8 % of the running jobs finish, as many new jobs arrive
            now.addAndGet(60_000);
            running.sort(null);
            int finish = Math.max(1, running.size() * 8 / 100);
            batch.clear();
            for (int k = 0; k < finish && !running.isEmpty(); k++) {
                String id = running.remove(random.nextInt(running.size()));
                s.reportFinished(id);
                s.jobs().forget(id);
                batch.add(job(random, next[0]++, queues, now.get()));
            }
            s.submitAll(batch);
        }
        assertThat(s.checkInvariants()).isEmpty();
        return new Transcript(text.toString(), sha256(text.toString()), preemptions, refused, rules);
    }

    /** A job of 1, 2, 4, 8 GPUs (one member) or a 2 × 8 GPU gang in one rack, with a priority 0-99. */
    private static JobSpec job(SplittableRandom random, int i, int queues, long now) {
        int kind = random.nextInt(9);
        JobSpec.Builder j = JobSpec.builder("job-" + i).queue("lq-" + random.nextInt(queues)).priority(random.nextInt(100)).submitTimeMillis(now);
        if (kind == 8) {
            return j.podSet(PodSet.of("workers", 2, Resources.builder().cpu(16).memoryGiB(128).gpus(8).build())
                    .withTopology(TopologyRequest.required(ClusterSpec.RACK_LABEL))).build();
        }
        int gpus = 1 << (kind % 4);
        return j.podSet(PodSet.of("main", 1, Resources.builder().cpu(2L * gpus).memoryGiB(16L * gpus).gpus(gpus).build())).build();
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
