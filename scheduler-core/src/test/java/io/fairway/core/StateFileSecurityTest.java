package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Saved state is untrusted input: {@link SchedulerState#fromBytes} builds only the classes a state is made of, refuses
 * deep or oversized graphs, and reads a state file written by the previous version.
 */
class StateFileSecurityTest {
    /** Set when a {@link Gadget} is deserialised: it must never be. */
    static volatile boolean gadgetBuilt;

    /** Stands for any serialisable class on the classpath whose deserialisation does something. */
    static final class Gadget implements Serializable {
        private static final long serialVersionUID = 1L;

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            gadgetBuilt = true;
        }
    }

    private static byte[] serialise(Object o) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(b)) {
            out.writeObject(o);
        }
        return b.toByteArray();
    }

    @Test
    void aClassOutsideTheStateIsRefusedBeforeItIsBuilt() throws Exception {
        gadgetBuilt = false;
        assertThatThrownBy(() -> SchedulerState.fromBytes(serialise(new Gadget())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("class io.fairway.core.StateFileSecurityTest$Gadget is not part of a scheduler state");
        List<Object> wrapped = new ArrayList<>(List.of("x", new Gadget())); // hidden inside an allowed-looking list
        assertThatThrownBy(() -> SchedulerState.fromBytes(serialise(wrapped))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not part of a scheduler state");
        assertThat(gadgetBuilt).as("the gadget's readObject ran").isFalse();
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS)
    void theNestedHashSetBombIsRefusedAtOnce() throws Exception {
        // 40 levels of two sets sharing children: hashing it on read costs 2^40 steps without a filter
        Set<Object> root = new HashSet<>();
        Set<Object> s1 = root;
        Set<Object> s2 = new HashSet<>();
        for (int i = 0; i < 40; i++) {
            Set<Object> t1 = new HashSet<>();
            Set<Object> t2 = new HashSet<>();
            t1.add("foo");
            s1.add(t1);
            s1.add(t2);
            s2.add(t1);
            s2.add(t2);
            s1 = t1;
            s2 = t2;
        }
        byte[] bomb = serialise(root);
        assertThat(bomb.length).isLessThan(4096);
        assertThatThrownBy(() -> SchedulerState.fromBytes(bomb)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.util.HashSet is not part of a scheduler state");
    }

    @Test
    void deepNestingAndHugeArraysAreRefused() throws Exception {
        Object deep = "leaf";
        for (int i = 0; i < 40; i++) {
            deep = new ArrayList<>(List.of(deep));
        }
        Object nested = deep;
        assertThatThrownBy(() -> SchedulerState.fromBytes(serialise(nested))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nested 17 deep (at most 16)");

        // a few bytes that claim a long[] of 2^30 elements (8 GiB) — refused before it is allocated
        byte[] small = serialise(new long[] {7, 8, 9});
        byte[] forged = small.clone();
        int at = forged.length - 3 * 8 - 4; // the array length precedes its three elements
        assertThat(forged[at + 3]).isEqualTo((byte) 3);
        forged[at] = 0x40;
        forged[at + 3] = 0;
        assertThatThrownBy(() -> SchedulerState.fromBytes(forged)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("an array of 1073741824 elements");
        assertThatThrownBy(() -> SchedulerState.fromBytes(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("null");
        assertThatThrownBy(() -> SchedulerState.fromBytes(new byte[] {1, 2, 3})).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot read a scheduler state");
    }

    /**
     * {@code state/scheduler-state-v1.bin} was written by main at 7111b9f (before this format was filtered): the
     * script of {@link RestoreProperties} under fair-share-over-time, seed 7, stopped after 12 of its steps. This
     * version reads it into exactly the state the same script reaches now, and the restored run continues with the
     * decisions of an uninterrupted one.
     */
    @Test
    void readsTheStateFileWrittenByThePreviousVersion() throws Exception {
        byte[] saved;
        try (InputStream in = getClass().getResourceAsStream("/state/scheduler-state-v1.bin")) {
            saved = in.readAllBytes();
        }
        SchedulerState old = SchedulerState.fromBytes(saved);
        String policy = "fair-share-over-time";
        int stopAt = 12;
        int steps = 25;

        AtomicLong nowA = new AtomicLong();
        Scheduler a = RestoreProperties.fresh(nowA, policy, 7);
        Random rndA = new Random(7);
        TreeMap<Long, List<String>> endsA = new TreeMap<>();
        List<List<String>> decisionsA = new ArrayList<>();
        for (int i = 0; i < steps; i++) {
            decisionsA.add(RestoreProperties.step(a, nowA, rndA, i, endsA));
        }

        AtomicLong nowB = new AtomicLong();
        Scheduler b = RestoreProperties.fresh(nowB, policy, 7);
        Random rndB = new Random(7);
        TreeMap<Long, List<String>> endsB = new TreeMap<>();
        List<List<String>> decisionsB = new ArrayList<>();
        for (int i = 0; i < stopAt; i++) {
            decisionsB.add(RestoreProperties.step(b, nowB, rndB, i, endsB));
        }
        // the file predates submission-time stamping (jobs without a submitTimeMillis kept 0), and usage charged up to
        // each job's end (its usage history was charged the old way, to the next round): everything else is equal
        SchedulerState now = b.exportState();
        assertThat(old.decayedUsage().keySet()).isEqualTo(now.decayedUsage().keySet());
        old = withUsage(old, now.decayedUsage());
        assertThat(withoutSubmitTimes(old)).isEqualTo(withoutSubmitTimes(now));
        assertThat(old.jobs()).hasSize(8);

        AtomicLong nowC = new AtomicLong(nowB.get());
        Scheduler c = Scheduler.restore(old, RestoreProperties.builder(nowC, policy));
        for (int i = stopAt; i < steps; i++) {
            decisionsB.add(RestoreProperties.step(c, nowC, rndB, i, endsB));
        }
        assertThat(decisionsB).isEqualTo(decisionsA);
        assertThat(withoutSubmitTimes(c.jobs().all())).isEqualTo(withoutSubmitTimes(a.jobs().all()));
        assertThat(c.checkInvariants()).isEmpty();
    }

    private static SchedulerState withUsage(SchedulerState s, java.util.Map<String, Double> usage) {
        return new SchedulerState(s.seed(), s.placement(), s.usageHalfLifeMillis(), s.round(), s.nextSequence(), s.usageUpdatedAt(),
                s.clusters(), s.flavors(), s.cohorts(), s.clusterQueues(), s.localQueues(), s.nodes(), s.nodePools(), s.jobs(), usage,
                s.provisioning());
    }

    private static SchedulerState withoutSubmitTimes(SchedulerState s) {
        return new SchedulerState(s.seed(), s.placement(), s.usageHalfLifeMillis(), s.round(), s.nextSequence(), s.usageUpdatedAt(),
                s.clusters(), s.flavors(), s.cohorts(), s.clusterQueues(), s.localQueues(), s.nodes(), s.nodePools(),
                withoutSubmitTimes(s.jobs()), s.decayedUsage(), s.provisioning());
    }

    private static List<io.fairway.api.job.JobStatus> withoutSubmitTimes(List<io.fairway.api.job.JobStatus> jobs) {
        return jobs.stream().map(j -> new io.fairway.api.job.JobStatus(j.spec().withSubmitTime(0), j.state(), j.pendingReason(),
                j.admission(), j.stateSinceMillis(), j.preemptions(), j.sequence(), j.attainedGpuMillis(), j.runningMillis(),
                j.progress())).toList();
    }
}
