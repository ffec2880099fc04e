package io.fairway.api.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.model.Resources;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The shared job orders: who goes first when submit times, priorities or nothing but the sequence differ. */
class JobOrderTest {
    private static JobStatus job(String id, int priority, long submitted, long sequence) {
        JobSpec spec = JobSpec.builder(id).queue("q").priority(priority).submitTimeMillis(submitted)
                .podSet(PodSet.of("main", 1, Resources.builder().cpu(1).gpus(1).build())).build();
        return new JobStatus(spec, JobState.PENDING, PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS, "waiting"),
                null, 0, 0, sequence, 0, 0, -1);
    }

    private static List<String> sorted(java.util.Comparator<JobStatus> order, JobStatus... jobs) {
        List<JobStatus> l = new ArrayList<>(List.of(jobs));
        l.sort(order);
        return l.stream().map(JobStatus::id).toList();
    }

    private final JobStatus lateUrgent = job("late-urgent", 10, 5_000, 1);
    private final JobStatus early = job("early", 0, 1_000, 3);
    private final JobStatus sameTimeFirstAccepted = job("same-time-first", 0, 2_000, 2);
    private final JobStatus sameTimeLastAccepted = job("same-time-last", 0, 2_000, 4);
    private final JobStatus urgentEarly = job("urgent-early", 10, 3_000, 5);

    /**
     * SUBMISSION is submit time, then the order the scheduler accepted the jobs in; PRIORITY is highest first, then
     * submission order; SEQUENCE ignores submit time and priority.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "SUBMISSION | early, same-time-first, same-time-last, urgent-early, late-urgent",
        "PRIORITY   | urgent-early, late-urgent, early, same-time-first, same-time-last",
        "SEQUENCE   | late-urgent, same-time-first, early, same-time-last, urgent-early"})
    void eachOrderSortsTheJobsWhateverOrderTheyCameIn(JobOrder order, String expected) {
        List<String> inOrder = List.of(expected.split(", "));
        assertThat(sorted(order, sameTimeLastAccepted, lateUrgent, early, sameTimeFirstAccepted, urgentEarly)).isEqualTo(inOrder);
        assertThat(sorted(order, urgentEarly, sameTimeFirstAccepted, early, lateUrgent, sameTimeLastAccepted)).isEqualTo(inOrder);
    }

    @Test
    void submissionReversedIsLatestFirst() {
        assertThat(sorted(JobOrder.SUBMISSION.reversed(), early, sameTimeFirstAccepted, sameTimeLastAccepted))
                .containsExactly("same-time-last", "same-time-first", "early");
    }

    @Test
    void priorityOrdersTheExtremesWithoutOverflow() {
        JobStatus lowest = job("lowest", Integer.MIN_VALUE, 0, 1);
        JobStatus highest = job("highest", Integer.MAX_VALUE, 0, 2);
        assertThat(sorted(JobOrder.PRIORITY, lowest, early, highest)).containsExactly("highest", "early", "lowest");
    }

    @Test
    void distinctJobsNeverCompareEqual() {
        List<JobStatus> all = List.of(lateUrgent, early, sameTimeFirstAccepted, sameTimeLastAccepted, urgentEarly);
        for (JobOrder order : JobOrder.values()) {
            for (JobStatus a : all) {
                for (JobStatus b : all) {
                    assertThat(order.compare(a, b) == 0).as(order + " " + a.id() + " vs " + b.id()).isEqualTo(a == b);
                    assertThat(Integer.signum(order.compare(a, b))).isEqualTo(-Integer.signum(order.compare(b, a)));
                }
            }
        }
    }
}
