package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.Resources;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/**
 * The holding jobs' sorted arrays answer as a tree by sequence would: on random sequences of new holders (anywhere in
 * the order), replaced statuses and holders letting go, every lookup, size and listing in order is the tree's.
 */
class HoldingJobsTest {
    @Property(tries = 200)
    void answersAsATreeBySequence(@ForAll @LongRange(min = 1, max = 1_000_000) long seed) {
        Random rnd = new Random(seed);
        HoldingJobs book = new HoldingJobs();
        TreeMap<Long, JobStatus> tree = new TreeMap<>();
        for (int step = 0; step < 300; step++) {
            long sequence = rnd.nextInt(60);
            int what = rnd.nextInt(3);
            if (what < 2) {
                JobStatus j = status(sequence, rnd.nextInt(1_000));
                assertThat(book.put(sequence, j)).isSameAs(tree.put(sequence, j));
            } else {
                assertThat(book.remove(sequence)).isSameAs(tree.remove(sequence));
            }
            long probe = rnd.nextInt(60);
            assertThat(book.get(probe)).isSameAs(tree.get(probe));
            assertThat(book.size()).isEqualTo(tree.size());
            assertThat(book.values()).containsExactlyElementsOf(new ArrayList<>(tree.values()));
            assertThat(book.toArray()).containsExactly(tree.values().toArray(new JobStatus[0]));
        }
    }

    @Example
    void iteratingWhileAJobStartsOrStopsHoldingFailsFastButANewStatusInPlaceDoesNot() {
        HoldingJobs book = new HoldingJobs();
        for (long s = 0; s < 4; s++) {
            book.put(s, status(s, 0));
        }
        Iterator<JobStatus> it = book.values().iterator();
        it.next();
        book.put(1, status(1, 1)); // a new status in its place: a lease renewal, say
        it.next();
        book.remove(3);
        assertThatThrownBy(it::next).isInstanceOf(ConcurrentModificationException.class);
        assertThatThrownBy(() -> book.values().add(status(9, 0))).isInstanceOf(UnsupportedOperationException.class);
    }

    private static JobStatus status(long sequence, int tag) {
        JobSpec spec = JobSpec.builder("job-" + sequence + "-" + tag).queue("lq")
                .podSet(PodSet.of("main", 1, Resources.builder().cpu(1).build())).build();
        return JobStatus.submitted(spec, null, 0, sequence);
    }
}
