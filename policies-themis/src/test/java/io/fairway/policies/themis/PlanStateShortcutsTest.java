package io.fairway.policies.themis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

/**
 * The round's shortcuts give what the plain forms they replace give: the ρ a waiting job's reason shows, and the
 * orders apps are ranked in. (A user reads the reason text; the order decides who is served first.)
 */
class PlanStateShortcutsTest {
    @Property(tries = 2000)
    void twoDecimalsIsWhatTheFormatterWrites(@ForAll @DoubleRange(min = 0, max = 1e9) double x) {
        assertThat(PlanState.twoDecimals(x)).isEqualTo(String.format(Locale.ROOT, "%.2f", x));
    }

    @Property(tries = 3000)
    void twoDecimalsIsWhatTheFormatterWritesAFewUlpsFromHalves(@ForAll @DoubleRange(min = 0, max = 1e9) double x,
                                                              @ForAll @net.jqwik.api.constraints.IntRange(min = -40, max = 40) int ulps) {
        // where the hundredths computed from x and from the digits Double.toString writes could differ
        double half = (Math.floor(x * 100) + 0.5) / 100;
        for (int i = 0; i < Math.abs(ulps); i++) {
            half = ulps > 0 ? Math.nextUp(half) : Math.nextDown(half);
        }
        assertThat(PlanState.twoDecimals(half)).as("%s", half).isEqualTo(String.format(Locale.ROOT, "%.2f", half));
    }

    @Property(tries = 500)
    void twoDecimalsIsWhatTheFormatterWritesNearHalves(@ForAll @DoubleRange(min = 0, max = 1000) double x) {
        double half = Math.floor(x * 100) / 100 + 0.005; // ties of the third decimal, where rounding modes differ
        assertThat(PlanState.twoDecimals(half)).isEqualTo(String.format(Locale.ROOT, "%.2f", half));
    }

    @Test
    void twoDecimalsOfTheSpecialValues() {
        for (double x : new double[] {0.0, -0.0, 1.005, 2.675, 0.125, 1e7, 1e-7, Double.NaN, Double.POSITIVE_INFINITY, -1.2345}) {
            assertThat(PlanState.twoDecimals(x)).as("%s", x).isEqualTo(String.format(Locale.ROOT, "%.2f", x));
        }
    }

    @Property(tries = 300)
    void sortByKeyIsTheComparatorsOrder(@ForAll @Size(max = 60) List<@StringLength(min = 1, max = 3) String> names,
                                        @ForAll @Size(min = 1, max = 5) List<@DoubleRange(min = -3, max = 3) Double> keys) {
        List<String> distinct = new ArrayList<>(new java.util.LinkedHashSet<>(names));
        java.util.function.ToDoubleFunction<String> key = n -> keys.get(Math.floorMod(n.hashCode(), keys.size()));
        List<String> expected = new ArrayList<>(distinct);
        expected.sort(Comparator.comparingDouble(key).thenComparing(n -> n));
        List<String> actual = new ArrayList<>(distinct);
        PlanState.sortByKey(actual, key);
        assertThat(actual).containsExactlyElementsOf(expected);
    }

    /**
     * The set of jobs tried in a round answers as a plain set of ids: on random interleavings of adds and questions
     * (jobs of a few apps, asked about in runs of one app and at random), every answer is membership by id.
     */
    @Property(tries = 500)
    void triedJobsAnswerAsASetOfIds(@ForAll @net.jqwik.api.constraints.LongRange(min = 1, max = 1_000_000) long seed) {
        java.util.Random rnd = new java.util.Random(seed);
        List<io.fairway.api.job.JobStatus> jobs = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            String app = "app-" + rnd.nextInt(5);
            jobs.add(io.fairway.api.job.JobStatus.submitted(MiniSim.job(app + "-j" + i, app, 1, 600), null, 0, i));
        }
        PlanState.Tried tried = new PlanState.Tried();
        java.util.Set<String> plain = new java.util.HashSet<>();
        for (int op = 0; op < 200; op++) {
            io.fairway.api.job.JobStatus j = jobs.get(rnd.nextInt(jobs.size()));
            if (rnd.nextInt(4) == 0) {
                tried.add(j);
                plain.add(j.id());
            } else {
                assertThat(tried.contains(j)).as("job %s after %s", j.id(), plain).isEqualTo(plain.contains(j.id()));
            }
        }
    }
}
