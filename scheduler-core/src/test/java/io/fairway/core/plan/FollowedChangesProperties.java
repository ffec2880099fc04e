package io.fairway.core.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.snapshot.HeldJobs;
import io.fairway.core.snapshot.Snapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * A round's memory follows the holding jobs that changed since the last round (the engine's arrays walked side by
 * side) instead of fingerprinting every holding job: on random histories of starts, ends, moves, state changes and
 * re-issued statuses, on nodes split between flavors and ClusterQueues in two cohorts and alone, every capacity part
 * and cohort tree keeps its epoch exactly when the memory that fingerprints every job keeps it. (A kept epoch lets
 * an answer of an earlier round stand; a part or tree whose jobs changed must not keep it.)
 */
class FollowedChangesProperties {
    private static final List<String> QUEUES = List.of("cq0", "cq1", "cq2", "cq3");
    private static final List<JobState> HOLDING = List.of(JobState.QUOTA_RESERVED, JobState.ADMITTED, JobState.RUNNING);

    private record Config(List<Node> nodes, Map<String, ResourceFlavor> flavors, Map<String, ClusterQueue> queues,
                          Map<String, Cohort> cohorts, Map<String, LocalQueue> localQueues) {
    }

    private static Config config() {
        List<Node> nodes = new ArrayList<>();
        for (int n = 0; n < 6; n++) {
            nodes.add(Node.builder("n" + n).labels(Map.of("pool", n < 3 ? "a" : "b")).gpus(GpuTopology.nvSwitch8("H100")).build());
        }
        Map<String, ResourceFlavor> flavors = new LinkedHashMap<>();
        flavors.put("fa", new ResourceFlavor("fa", Map.of("pool", "a"), List.of(), List.of()));
        flavors.put("fb", new ResourceFlavor("fb", Map.of("pool", "b"), List.of(), List.of()));
        flavors.put("any", ResourceFlavor.of("any"));
        Map<String, ClusterQueue> queues = new LinkedHashMap<>();
        String[] cohortOf = {"c1", "c1", null, "c2"};
        for (int q = 0; q < QUEUES.size(); q++) {
            queues.put(QUEUES.get(q), ClusterQueue.builder(QUEUES.get(q)).cohort(cohortOf[q])
                    .quota(q % 2 == 0 ? "fa" : "fb", Resources.builder().gpus(24).cpu(1000).build()).build());
        }
        Map<String, Cohort> cohorts = Map.of("c1", Cohort.of("c1", null), "c2", Cohort.of("c2", null));
        return new Config(nodes, flavors, queues, cohorts, Map.of());
    }

    private static JobStatus job(long seq, SplittableRandom r, JobSpec spec) {
        String cq = QUEUES.get(r.nextInt(QUEUES.size()));
        List<MemberPlacement> members = List.of(new MemberPlacement("main", 0, "n" + r.nextInt(6), List.of(r.nextInt(8))));
        Admit a = new Admit(spec.id(), cq, Map.of("main", "fa"), Map.of(), new Placement(members, null, 1.0), 0, Admit.NO_LEASE, seq);
        return new JobStatus(spec, HOLDING.get(r.nextInt(HOLDING.size())), null, a, 0, 0, seq, 0, 0, 0);
    }

    private static JobSpec spec(long seq) {
        return JobSpec.builder("j" + seq).queue("lq").podSet(PodSet.of("main", 1, Resources.builder().gpus(1).build())).build();
    }

    /** The same status but its state, its admission, or nothing but the object (a status re-issued with its service). */
    private static JobStatus changed(JobStatus j, SplittableRandom r) {
        return switch (r.nextInt(3)) {
            case 0 -> new JobStatus(j.spec(), HOLDING.get(r.nextInt(HOLDING.size())), null, j.admission(), 0, 0, j.sequence(), 0, 0, 0);
            case 1 -> job(j.sequence(), r, j.spec());
            default -> new JobStatus(j.spec(), j.state(), null, j.admission(), 5, 0, j.sequence(), 7, 7, 0);
        };
    }

    @Property(tries = 200)
    void partsAndTreesKeepTheirEpochsAsWhenEveryJobIsRead(@ForAll long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        Config c = config();
        TreeMap<Long, JobStatus> holding = new TreeMap<>();
        long next = 0;
        for (int i = r.nextInt(40); i > 0; i--) {
            next++;
            holding.put(next, job(next, r, spec(next)));
        }
        HeldJobs.Stored stored = new HeldJobs.Stored(holding.values().toArray(new JobStatus[0]));
        RoundMemory followed = null;
        RoundMemory everyJob = null;
        Map<String, Long> lastFollowed = Map.of();
        Map<String, Long> lastEveryJob = Map.of();
        int kept = 0;
        int renewed = 0;
        for (int round = 1; round <= 30; round++) {
            int changes = r.nextInt(4) == 0 ? 0 : 1 + r.nextInt(5);
            for (int k = 0; k < changes; k++) {
                List<Long> seqs = new ArrayList<>(holding.keySet());
                int what = seqs.isEmpty() ? 0 : r.nextInt(3);
                if (what == 0) {
                    next++;
                    holding.put(next, job(next, r, spec(next)));
                } else if (what == 1) {
                    holding.remove(seqs.get(r.nextInt(seqs.size())));
                } else {
                    long seq = seqs.get(r.nextInt(seqs.size()));
                    holding.put(seq, changed(holding.get(seq), r));
                }
            }
            if (changes > 0) { // else the engine hands over the same array
                stored = new HeldJobs.Stored(holding.values().toArray(new JobStatus[0]));
            }
            Snapshot a = snapshot(round, c, new HeldJobs(stored, 0));
            Snapshot b = snapshot(round, c, List.copyOf(holding.values()));
            RoundMemory.Round fa = RoundMemory.begin(followed, a);
            RoundMemory.Round fb = RoundMemory.begin(everyJob, b);
            Map<String, Long> ea = fa.epochs();
            Map<String, Long> eb = fb.epochs();
            assertThat(ea.keySet()).isEqualTo(eb.keySet());
            for (String key : ea.keySet()) {
                boolean keptA = ea.get(key).equals(lastFollowed.get(key));
                boolean keptB = eb.get(key).equals(lastEveryJob.get(key));
                assertThat(keptA).as("round %d, %s kept its epoch", round, key).isEqualTo(keptB);
                kept += keptB && round > 1 ? 1 : 0;
                renewed += !keptB && round > 1 ? 1 : 0;
            }
            lastFollowed = ea;
            lastEveryJob = eb;
            followed = fa.finish(false);
            everyJob = fb.finish(false);
        }
        assertThat(kept).as("epochs kept").isPositive(); // the property compares both outcomes, not only one
        assertThat(renewed).as("epochs renewed").isPositive();
    }

    private static Snapshot snapshot(long round, Config c, List<JobStatus> holding) {
        return new Snapshot(round, 0, 0, Map.of(), c.nodes(), c.flavors(), c.queues(), c.cohorts(), c.localQueues(), List.of(), holding);
    }
}
