package io.fairway.policies.themis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobOrder;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.Resources;
import io.fairway.core.Policies;
import io.fairway.policies.themis.FinishTimeEstimator.JobView;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The round's faster forms give what the plain forms they replace give: the ρ a waiting job's reason shows (digits
 * rounded without a BigDecimal), the bundle sizes a bidder is reported with (one pass instead of two streams), the
 * submission order the overdue bound walks (keys read once), an item's position in its app (by the view itself), an
 * option's choices (read in place from the app's choices so far instead of copied) and the key of a job's shape (pod
 * sets in an array instead of a list) and an app's items worst job first (an insertion sort on the keys instead of a
 * record per item and a comparator).
 */
class SpeedShortcutsTest {
    @Property(tries = 3000)
    void roundingTheDigitsIsWhatBigDecimalGives(@ForAll @DoubleRange(min = 0, max = 1e18) double x, @ForAll @IntRange(min = -12, max = 0) int scale) {
        double v = x * Math.pow(10, scale); // small values too, where Double.toString writes an exponent
        String digits = Double.toString(v);
        assertThat(PlanState.halfUpTwoDecimals(digits)).as(digits)
                .isEqualTo(new BigDecimal(digits).setScale(2, RoundingMode.HALF_UP).toPlainString());
    }

    @Property(tries = 1000)
    void smallestAndLargestBundleAreWhatTheStreamsGave(@ForAll @Size(max = 12) List<@IntRange(min = 0, max = 4096) Integer> sizes) {
        int[] s = sizes.stream().mapToInt(Integer::intValue).toArray();
        long[] expected = {java.util.Arrays.stream(s).filter(x -> x > 0).min().orElse(0), java.util.Arrays.stream(s).max().orElse(0)};
        assertThat(LeaseAuction.smallestAndLargest(s)).containsExactly(expected);
    }

    @Property(tries = 500)
    void liveJobsComeInSubmissionOrder(@ForAll @Size(max = 40) List<@IntRange(min = 0, max = 5) Integer> submits,
                                       @ForAll @IntRange(min = 0, max = 40) int holdingLive, @ForAll boolean sortedRuns) {
        List<JobStatus> jobs = new ArrayList<>();
        for (int i = 0; i < submits.size(); i++) {
            JobSpec spec = JobSpec.builder("j" + i).queue("lq").jobSet("a").members(1, Resources.builder().gpus(1).build())
                    .estimatedSeconds(600).submitTimeMillis(submits.get(i) * 1000L).build();
            // sequences in reverse of the list, so that equal submit times are told apart by them
            jobs.add(new JobStatus(spec, JobState.PENDING, PendingReason.of(PendingReason.Code.NOT_YET_CONSIDERED, "x"), null, 0, 0,
                    1000 - i, 0, 0, -1));
        }
        int holding = Math.min(holdingLive, jobs.size());
        if (sortedRuns) { // the engine's case: each run already in submission order, merged
            jobs.subList(0, holding).sort(JobOrder.SUBMISSION);
            jobs.subList(holding, jobs.size()).sort(JobOrder.SUBMISSION);
        }
        List<JobView> views = new ArrayList<>();
        for (JobStatus j : jobs) {
            views.add(FinishTimeEstimator.view(j, 10_000, ThemisPolicy.Estimate.PROGRESS, x -> true));
        }
        List<JobView> expected = new ArrayList<>(views);
        expected.sort(Comparator.comparing(JobView::status, JobOrder.SUBMISSION));
        assertThat(PlanState.inSubmissionOrder(views, holding)).containsExactlyElementsOf(expected);
    }

    @Property(tries = 1000)
    void submissionPositionsAreAStableSortOnBothKeys(@ForAll @Size(max = 60) List<@IntRange(min = 0, max = 6) Integer> submits,
                                                    @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 6) Integer> sequences,
                                                    @ForAll @IntRange(min = 0, max = 3) int width) {
        // width 0–1: keys and positions packed into one long; 2–3: ranges too wide to pack (merge-sorted), negatives
        long[] scale = {1, 1_000_003L, Long.MAX_VALUE / 5, Long.MAX_VALUE / 3};
        int n = Math.min(submits.size(), sequences.size());
        long[] submit = new long[n];
        long[] sequence = new long[n];
        for (int i = 0; i < n; i++) {
            submit[i] = (submits.get(i) - 3) * scale[width];
            sequence[i] = sequences.get(i) * (width == 3 ? scale[width] : 1);
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            expected.add(i);
        }
        expected.sort(Comparator.comparingLong((Integer i) -> submit[i]).thenComparingLong(i -> sequence[i])); // stable
        assertThat(PlanState.submissionPositions(submit, sequence)).containsExactly(expected.stream().mapToInt(Integer::intValue).toArray());
    }

    @Property(tries = 300)
    void anItemsPositionIsThatOfItsJob(@ForAll @IntRange(min = 1, max = 8) int n, @ForAll @IntRange(min = 0, max = 7) int pick,
                                      @ForAll boolean copy) {
        List<JobView> views = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            JobSpec spec = JobSpec.builder("j" + i).queue("lq").jobSet("a").members(1, Resources.builder().gpus(1).build())
                    .estimatedSeconds(600).submitTimeMillis(0).build();
            views.add(FinishTimeEstimator.view(new JobStatus(spec, JobState.PENDING, null, null, 0, 0, i, 0, 0, -1), 0,
                    ThemisPolicy.Estimate.PROGRESS, x -> true));
        }
        int p = pick % n;
        JobView job = copy ? views.get(p).asRevocable() : views.get(p);
        assertThat(Bids.position(views, null, job)).isEqualTo(p);
    }

    @org.junit.jupiter.api.Test
    void everyWaitingJobIsToldItsOwnAppsReasonWhetherItsAppsJobsComeTogetherOrNot() {
        MiniSim sim = new MiniSim(Policies.create("themis", java.util.Map.of()), 1, 1, GpuTopology.pcie4("V100"), 1);
        sim.scheduler.submit(MiniSim.job("holder", "h", 4, 100_000));
        sim.scheduler.runRound();
        sim.scheduler.reportStarted("holder");
        sim.now = 60_000;
        // waiting jobs of three apps, in an order where an app's jobs are sometimes together and sometimes not
        String[][] waiting = {{"a-0", "a"}, {"a-1", "a"}, {"b-0", "b"}, {"a-2", "a"}, {"c-0", "c"}, {"c-1", "c"}, {"b-1", "b"}};
        for (String[] w : waiting) {
            sim.scheduler.submit(MiniSim.job(w[0], w[1], 1 + w[1].charAt(0) - 'a', 3600 * (1 + w[1].charAt(0) - 'a')));
        }
        sim.scheduler.runRound();
        for (String[] w : waiting) {
            String reason = sim.scheduler.status(w[0]).orElseThrow().pendingReason().message();
            assertThat(reason).as(w[0]).startsWith("Themis: app " + w[1] + " (rho ");
        }
        // each app's jobs share one reason, and the apps' reasons differ (their rho differ)
        assertThat(sim.scheduler.status("a-0").orElseThrow().pendingReason().message())
                .isEqualTo(sim.scheduler.status("a-2").orElseThrow().pendingReason().message())
                .isNotEqualTo(sim.scheduler.status("b-0").orElseThrow().pendingReason().message());
    }

    @Property(tries = 500)
    void anOptionsChoicesReadInPlaceAreTheCopiedOnes(@ForAll @Size(min = 1, max = 12) List<@IntRange(min = 0, max = 4) Integer> members,
                                                    @ForAll @Size(max = 12) List<@IntRange(min = 0, max = 12) Integer> optionsAt) {
        // options() appends one choice per item; an option taken after n of them had the n choices plus one more
        List<Bids.Choice> made = new ArrayList<>();
        List<List<Bids.Choice>> inPlace = new ArrayList<>();
        List<List<Bids.Choice>> copied = new ArrayList<>();
        for (int i = 0; i < members.size(); i++) {
            Bids.Item it = new Bids.Item(null, false, "w", 0, 4, 1, 0, 1, 1);
            for (int at : optionsAt) {
                if (at == i) {
                    Bids.Choice last = new Bids.Choice(it, members.get(i));
                    inPlace.add(new Bids.PrefixAndLast(made, made.size(), last));
                    List<Bids.Choice> cs = new ArrayList<>(made); // the form it replaces
                    cs.add(last);
                    copied.add(cs);
                }
            }
            made.add(new Bids.Choice(it, members.get(i)));
        }
        assertThat(inPlace).hasSameSizeAs(copied);
        for (int k = 0; k < inPlace.size(); k++) {
            assertThat(inPlace.get(k)).containsExactlyElementsOf(copied.get(k));
            assertThat(inPlace.get(k).stream().allMatch(c -> c.item().keep())).isEqualTo(copied.get(k).stream().allMatch(c -> c.item().keep()));
        }
    }

    @Property(tries = 500)
    void twoJobsShareAPlacementSearchExactlyWhenTheListFormOfTheirShapesIsEqual(@ForAll @IntRange(min = 0, max = 63) int a,
                                                                              @ForAll @IntRange(min = 0, max = 63) int b) {
        Bids.ShapeKey ka = Bids.shapeKey(shapedJob(a), null);
        Bids.ShapeKey kb = Bids.shapeKey(shapedJob(b), null);
        List<Object> la = List.of(ka.namespace(), ka.sensitivity(), List.of(ka.podSets())); // the form it replaces
        List<Object> lb = List.of(kb.namespace(), kb.sensitivity(), List.of(kb.podSets()));
        assertThat(ka.equals(kb)).as("%d vs %d", a, b).isEqualTo(la.equals(lb));
        if (ka.equals(kb)) {
            assertThat(ka.hashCode()).isEqualTo(kb.hashCode());
        }
        assertThat(la.equals(lb)).isEqualTo(shapeBits(a) == shapeBits(b));
    }

    @Property(tries = 1000)
    void aJobHasTheShapeOfAKeyExactlyWhenItsOwnKeyIsEqual(@ForAll @IntRange(min = 0, max = 63) int a, @ForAll @IntRange(min = 0, max = 63) int b,
                                                         @ForAll @IntRange(min = 0, max = 3) int fewerA, @ForAll @IntRange(min = 0, max = 3) int fewerB) {
        // counts: every pod set at its full count (0), or the main pod set at 1 or 2 members, the side one absent or at 1
        Bids.ShapeKey ka = Bids.shapeKey(shapedJob(a), counts(fewerA));
        JobSpec jb = shapedJob(b);
        assertThat(ka.sameShape(jb, counts(fewerB))).as("%d/%d vs %d/%d", a, fewerA, b, fewerB).isEqualTo(ka.equals(Bids.shapeKey(jb, counts(fewerB))));
    }

    private static java.util.Map<String, Integer> counts(int fewer) {
        return switch (fewer) {
            case 0 -> null;
            case 1 -> java.util.Map.of("main", 1);
            case 2 -> java.util.Map.of("main", 2, "side", 1);
            default -> java.util.Map.of("main", 1, "side", 1);
        };
    }

    /** The bits of a job's id that make its shape (bit 5, the job's name, does not). */
    private static int shapeBits(int bits) {
        return bits & 31;
    }

    /** A job whose namespace, model, pod sets, members and GPUs per member come from the bits. */
    private static JobSpec shapedJob(int bits) {
        JobSpec.Builder b = JobSpec.builder("j" + (bits >> 5)).namespace((bits & 1) == 0 ? "ns-a" : "ns-b").queue("lq").jobSet("a")
                .sensitivity(io.fairway.api.job.PlacementSensitivity.forModel((bits & 2) == 0 ? "vgg16" : "resnet50"))
                .podSet(io.fairway.api.job.PodSet.of("main", 1 + ((bits >> 2) & 1), Resources.builder().gpus(1 + ((bits >> 3) & 1)).build()));
        if ((bits & 16) != 0) {
            b.podSet(io.fairway.api.job.PodSet.of("side", 1, Resources.builder().gpus(1).build()));
        }
        return b.estimatedSeconds(600).build();
    }

    @Property(tries = 1000)
    void anAppsItemsSortedOnTheirKeysAreInTheComparatorsOrder(
            @ForAll @Size(max = 10) List<@net.jqwik.api.constraints.IntRange(min = 0, max = 6) Integer> keyPicks) {
        double[] choices = {-2.5, -1, -0.0, 0.0, 1, 1, Double.NaN}; // ties, both zeros, and NaN, as Double.compare orders them
        List<Bids.Item> items = new ArrayList<>();
        double[] keys = new double[keyPicks.size()];
        record Keyed(double key, int pos, Bids.Item item) {
        }
        List<Keyed> expected = new ArrayList<>();
        for (int i = 0; i < keys.length; i++) {
            Bids.Item it = new Bids.Item(null, false, null, 0, 0, 0, i, 1, 1); // fixedGpus tells items apart
            items.add(it);
            keys[i] = choices[keyPicks.get(i)];
            expected.add(new Keyed(keys[i], i, it));
        }
        expected.sort(Comparator.comparingDouble(Keyed::key).thenComparingInt(Keyed::pos)); // the form it replaces
        Bids.sortStablyByKey(items, keys);
        assertThat(items).containsExactlyElementsOf(expected.stream().map(Keyed::item).toList());
    }
}
