package io.fairway.policies.fifo;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.PendingGroup;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The walk's heads in key order: groups handed over in submission order are sorted by priority alone (counted, or
 * as primitive keys); any other input by comparing cursors. Both must give the order a plain comparison sort gives, ties included.
 */
class HeadsOrderTest {
    private static final PendingReason WAITING = PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS, "waiting");

    @Test
    void theWalkOrderIsTheComparisonSortsWhateverTheInputOrder() {
        SplittableRandom random = new SplittableRandom(7);
        for (int trial = 0; trial < 400; trial++) {
            int n = random.nextInt(1, 300);
            int priorities = random.nextInt(1, 6);
            List<JobStatus> heads = new ArrayList<>();
            long submitted = 0;
            long sequence = 0;
            for (int i = 0; i < n; i++) {
                submitted += random.nextInt(3); // equal submission times, told apart by sequence (or not at all)
                sequence += random.nextInt(2);
                // near the top of the range; spread wide (sorted as packed keys); few values (counted)
                int priority = trial % 5 == 0 ? Integer.MAX_VALUE - random.nextInt(priorities)
                        : trial % 5 == 1 ? random.nextInt(-1_000_000, 1_000_000) : random.nextInt(priorities) * 100 - 100;
                heads.add(job("j" + i, priority, submitted, sequence));
            }
            int input = trial % 3; // 0: submission order (the engine's); 1: shuffled; 2: one pair out of order
            if (input == 1) {
                Collections.shuffle(heads, new java.util.Random(trial));
            } else if (input == 2 && n > 1) {
                Collections.swap(heads, 0, n - 1);
            }
            boolean byPriority = trial % 4 != 3;
            List<String> expected = order(new OrderedPolicy.Heads(cursors(heads, byPriority), OrderedPolicy.Cursor.BY_KEYS));
            assertThat(order(OrderedPolicy.Heads.byKeys(cursors(heads, byPriority)))).as("trial %d", trial).isEqualTo(expected);
            if (input == 0) { // and the order is the one the keys define: priority first (where used), then submission
                Comparator<JobStatus> keys = byPriority ? io.fairway.api.job.JobOrder.PRIORITY : io.fairway.api.job.JobOrder.SUBMISSION;
                List<JobStatus> sorted = new ArrayList<>(heads);
                sorted.sort(keys);
                assertThat(expected).isEqualTo(sorted.stream().map(j -> j.spec().id()).toList());
            }
        }
    }

    @Test
    void aPriorityBeyondTheIntRangeOfItsNegationIsSortedByComparison() {
        List<JobStatus> heads = List.of(job("low", Integer.MIN_VALUE, 0, 0), job("high", 5, 1, 1), job("mid", 0, 2, 2));
        assertThat(order(OrderedPolicy.Heads.byKeys(cursors(heads, true)))).containsExactly("high", "mid", "low");
    }

    private static JobStatus job(String id, int priority, long submitted, long sequence) {
        JobSpec spec = JobSpec.builder(id).queue("lq").priority(priority).submitTimeMillis(submitted)
                .podSet(PodSet.of("main", 1, Resources.builder().cpu(1).build())).build();
        return JobStatus.submitted(spec, WAITING, submitted, sequence);
    }

    private static OrderedPolicy.Cursor[] cursors(List<JobStatus> heads, boolean byPriority) {
        OrderedPolicy.Cursor[] out = new OrderedPolicy.Cursor[heads.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = new OrderedPolicy.Cursor(new Group("cq", List.of(heads.get(i))), byPriority);
        }
        return out;
    }

    private static List<String> order(OrderedPolicy.Heads heads) {
        List<String> out = new ArrayList<>();
        while (!heads.isEmpty()) {
            out.add(heads.poll().job().spec().id());
        }
        return out;
    }

    private record Group(String clusterQueue, List<JobStatus> jobs) implements PendingGroup {
    }
}
