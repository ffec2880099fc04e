package io.fairway.policies.themis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fairway.policies.themis.PartialAllocationAuction.Bid;
import io.fairway.policies.themis.PartialAllocationAuction.Method;
import io.fairway.policies.themis.PartialAllocationAuction.Outcome;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** Winner determination and the partial allocation. */
class PartialAllocationAuctionTest {
    private static final List<Bid> EXAMPLE = List.of(
            Bid.of("a", new int[] {0, 2, 4}, new double[] {1, 2.0, 2.5}),
            Bid.of("b", new int[] {0, 2}, new double[] {1, 1.5}),
            Bid.of("c", new int[] {0, 2}, new double[] {1, 1.2}));

    @Test
    void proportionalFairAllocationAndHiddenPaymentsOnAHandComputedExample() {
        // 4 GPUs. Σ log v: a4 = log 2.5 = 0.916; a2+b2 = log 3 = 1.099; a2+c2 = log 2.4 = 0.875; b2+c2 = log 1.8 = 0.588.
        Outcome o = PartialAllocationAuction.solve(EXAMPLE, 4, Method.EXACT);
        assertThat(o.allocation()).containsExactly(2, 2, 0);
        assertThat(o.objective()).isCloseTo(Math.log(3.0), within(1e-12));
        // c_a = v_b(PF) v_c(PF) / best of b and c alone on 4 GPUs = 1.5 * 1 / (1.5 * 1.2) = 0.8333
        assertThat(o.fraction()[0]).isCloseTo(1 / 1.2, within(1e-12));
        // c_b = v_a(PF) v_c(PF) / best of a and c alone on 4 GPUs = 2 / max(2.5, 2 * 1.2) = 0.8
        assertThat(o.fraction()[1]).isCloseTo(0.8, within(1e-12));
        assertThat(o.fraction()[2]).isEqualTo(1.0);
    }

    @Test
    void withoutContentionNobodyPays() {
        Outcome o = PartialAllocationAuction.solve(EXAMPLE, 8, Method.EXACT);
        assertThat(o.allocation()).containsExactly(4, 2, 2);
        assertThat(o.fraction()).containsExactly(1.0, 1.0, 1.0);
    }

    @Test
    void aGuaranteedBidGetsItsSmallestBundle() {
        List<Bid> bids = List.of(Bid.of("a", new int[] {0, 4}, new double[] {1, 3}),
                new Bid("worst", new int[] {0, 4}, new double[] {1, 1.01}, true));
        assertThat(PartialAllocationAuction.solve(bids, 4, Method.EXACT).allocation()).containsExactly(0, 4);
        assertThat(PartialAllocationAuction.solve(bids, 4, Method.GREEDY).allocation()).containsExactly(0, 4);
        // a guarantee that cannot be met (8 > 4 offered) blocks nobody
        List<Bid> big = List.of(Bid.of("a", new int[] {0, 4}, new double[] {1, 3}),
                new Bid("worst", new int[] {0, 8}, new double[] {1, 2}, true));
        assertThat(PartialAllocationAuction.solve(big, 4, Method.EXACT).allocation()).containsExactly(4, 0);
    }

    @Property
    void theExactProgrammeEqualsTheBruteForceOptimum(@ForAll("instances") Instance in) {
        Outcome o = PartialAllocationAuction.solve(in.bids, in.gpus, Method.EXACT);
        double brute = PartialAllocationAuction.bruteForceObjective(in.bids, in.gpus);
        assertThat(o.objective()).isCloseTo(brute, within(1e-9));
        assertThat(o.allocated()).isLessThanOrEqualTo(in.gpus);
        double sum = 0;
        for (int i = 0; i < in.bids.size(); i++) {
            sum += Math.log(in.bids.get(i).valuations()[o.option()[i]]);
            assertThat(in.bids.get(i).sizes()[o.option()[i]]).isEqualTo(o.allocation()[i]);
        }
        assertThat(sum).isCloseTo(o.objective(), within(1e-9));
    }

    @Property
    void hiddenPaymentFractionsMatchTheirDefinition(@ForAll("instances") Instance in) {
        Outcome o = PartialAllocationAuction.solve(in.bids, in.gpus, Method.EXACT);
        for (int i = 0; i < in.bids.size(); i++) {
            assertThat(o.fraction()[i]).isBetween(0.0, 1.0);
            if (o.allocation()[i] == 0) {
                continue;
            }
            List<Bid> others = new ArrayList<>(in.bids);
            others.remove(i);
            double without = PartialAllocationAuction.bruteForceObjective(others, in.gpus);
            double othersWith = o.objective() - Math.log(in.bids.get(i).valuations()[o.option()[i]]);
            assertThat(o.fraction()[i]).isCloseTo(Math.exp(othersWith - without), within(1e-9));
        }
    }

    @Property
    void theGreedyMethodIsFeasibleAndNeverBetterThanTheOptimum(@ForAll("instances") Instance in) {
        Outcome g = PartialAllocationAuction.solve(in.bids, in.gpus, Method.GREEDY);
        double brute = PartialAllocationAuction.bruteForceObjective(in.bids, in.gpus);
        assertThat(g.allocated()).isLessThanOrEqualTo(in.gpus);
        assertThat(g.objective()).isLessThanOrEqualTo(brute + 1e-9);
        for (double c : g.fraction()) {
            assertThat(c).isBetween(0.0, 1.0);
        }
    }

    /** A small random instance. */
    record Instance(List<Bid> bids, int gpus) {
        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("gpus=" + gpus);
            for (Bid b : bids) {
                sb.append(' ').append(b.app()).append(Arrays.toString(b.sizes())).append(Arrays.toString(b.valuations()));
            }
            return sb.toString();
        }
    }

    @Provide
    Arbitrary<Instance> instances() {
        Arbitrary<Bid> bid = Combinators.combine(Arbitraries.integers().between(1, 4), Arbitraries.longs()).as((k, seed) -> {
            java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
            int[] sizes = new int[k + 1];
            double[] vals = new double[k + 1];
            vals[0] = 1;
            for (int i = 1; i <= k; i++) {
                sizes[i] = sizes[i - 1] + 1 + r.nextInt(4);
                vals[i] = vals[i - 1] * (1 + r.nextDouble() * 2);
            }
            return Bid.of("b" + Long.toHexString(seed), sizes, vals);
        });
        return Combinators.combine(bid.list().ofMinSize(1).ofMaxSize(5), Arbitraries.integers().between(0, 16)).as(Instance::new);
    }
}
