package io.fairway.policies.themis;

import io.fairway.api.InvalidSpecException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Themis' arbiter: the partial allocation auction of Cole, Gkatzelis and Goel over a pool of offered GPUs.
 *
 * <p>Each {@link Bid} states, for the bundle sizes an app can use (0 included), its valuation: the speed-up of its
 * finish-time fairness, {@code ρ(no GPUs) ÷ ρ(with the bundle)} (≥ 1, non-decreasing in the size). The arbiter
 * computes the proportional-fair allocation — it maximises {@code Σ log v_i(k_i)} subject to {@code Σ k_i ≤ gpus}, at
 * most one bundle per app — and then each winner {@code i} keeps only the fraction
 * <pre>
 *   c_i = Π_{j≠i} v_j(PF) ÷ Π_{j≠i} v_j(PF without i)
 * </pre>
 * of its bundle (the hidden payment that makes truthful bids the best strategy). The GPUs withheld go to apps outside
 * the auction (the policy does that).
 *
 * <p>Two methods: {@link Method#EXACT}, a dynamic programme over bundle sizes (multiple-choice knapsack; prefix and
 * suffix tables give every {@code PF without i} in O(gpus) each), in O(Σ options × gpus); and
 * {@link Method#GREEDY}, marginal gains of {@code log v} per GPU over each bid's upper concave hull, with the hidden
 * payment estimated by refilling the winner's GPUs with the unserved increments (first order), in
 * O(Σ options × log bids). {@link Method#AUTO} uses the exact programme up to {@link #EXACT_CELL_LIMIT} cells.
 *
 * <pre>{@code
 * var bids = List.of(Bid.of("a", new int[] {0, 4}, new double[] {1, 2.0}),
 *                    Bid.of("b", new int[] {0, 4}, new double[] {1, 1.5}));
 * Outcome o = PartialAllocationAuction.solve(bids, 4, Method.EXACT);   // a wins 4 GPUs, keeps c = 1.5 / 1 → 1 (no rival loses)
 * }</pre>
 */
public final class PartialAllocationAuction {
    /** The exact programme is used by {@link Method#AUTO} while {@code Σ options × (gpus + 1)} stays below this. */
    public static final long EXACT_CELL_LIMIT = 40_000_000L;

    private PartialAllocationAuction() {
    }

    /** How the winners are determined. */
    public enum Method {
        /** Dynamic programme over bundle sizes: the optimum of Σ log v. */
        EXACT,
        /** Marginal gains on log-valuations over concave hulls; hidden payments to first order. */
        GREEDY,
        /** EXACT while the programme is small enough, else GREEDY. */
        AUTO
    }

    /**
     * One app's bid: valuations of the bundle sizes it can use.
     *
     * @param app the app (job set)
     * @param sizes bundle sizes in GPUs, strictly increasing, the first 0
     * @param valuations the valuation of each size, ≥ 1 (1 for size 0 is the norm); as {@code log} they are summed
     * @param guaranteed true: the app must receive a non-empty bundle when any of its sizes fits (starvation guard);
     *     it pays no hidden payment below its smallest bundle
     */
    public record Bid(String app, int[] sizes, double[] valuations, boolean guaranteed) {
        /** Validates. */
        public Bid {
            // the messages are built only on failure: a round validates a bid per app
            if (!(sizes.length > 0 && sizes.length == valuations.length && sizes[0] == 0)) {
                InvalidSpecException.check(false, "bid[" + app + "].sizes", Arrays.toString(sizes),
                        "bid %s: sizes must start at 0 and match the valuations", app);
            }
            for (int i = 0; i < sizes.length; i++) {
                if (!(i == 0 || sizes[i] > sizes[i - 1])) {
                    InvalidSpecException.check(false, "bid[" + app + "].sizes", Arrays.toString(sizes), "bid %s: sizes must increase", app);
                }
                if (!(valuations[i] > 0 && Double.isFinite(valuations[i]))) {
                    InvalidSpecException.check(false, "bid[" + app + "].valuations", valuations[i],
                            "bid %s: valuations must be finite and > 0, was %s", app, valuations[i]);
                }
            }
        }

        /**
         * @param app the app
         * @param sizes bundle sizes, from 0, increasing
         * @param valuations valuation of each
         * @return a bid without a guarantee
         */
        public static Bid of(String app, int[] sizes, double[] valuations) {
            return new Bid(app, sizes, valuations, false);
        }

        double logValue(int option) {
            return Math.log(valuations[option]);
        }
    }

    /**
     * The auction's result.
     *
     * @param allocation GPUs of the proportional-fair allocation, per bid (in the bids' order)
     * @param option the chosen option index of each bid
     * @param fraction c_i, the fraction of its bundle each bid keeps (1 for a bid that wins nothing)
     * @param objective Σ log v of the allocation
     * @param exact true when the exact programme produced it
     */
    public record Outcome(int[] allocation, int[] option, double[] fraction, double objective, boolean exact) {
        /** @return GPUs allocated in total */
        public int allocated() {
            int s = 0;
            for (int a : allocation) {
                s += a;
            }
            return s;
        }
    }

    /**
     * @param bids the bids
     * @param gpus the GPUs offered
     * @param method the method
     * @return the proportional-fair allocation and every winner's fraction
     */
    public static Outcome solve(List<Bid> bids, int gpus, Method method) {
        InvalidSpecException.check(gpus >= 0, "gpus", gpus, "offered gpus must be >= 0, was %d", gpus);
        Method m = method;
        if (m == Method.AUTO) {
            long cells = 0;
            for (Bid b : bids) {
                cells += (long) b.sizes().length * (gpus + 1L);
            }
            m = cells <= EXACT_CELL_LIMIT ? Method.EXACT : Method.GREEDY;
        }
        Outcome o = m == Method.EXACT ? exact(bids, gpus, true) : greedy(bids, gpus, true);
        if (o == null) {
            // guarantees that cannot all be honoured: drop them
            o = m == Method.EXACT ? exact(bids, gpus, false) : greedy(bids, gpus, false);
        }
        return o;
    }

    // ---------------------------------------------------------------- exact

    private static final double NEG = Double.NEGATIVE_INFINITY;

    private static Outcome exact(List<Bid> bids, int gpus, boolean honourGuarantees) {
        int n = bids.size();
        int w = gpus + 1;
        // pre[i][g]: the best Σ log v of the first i bids on at most g GPUs
        double[][] pre = new double[n + 1][];
        pre[0] = new double[w];
        for (int i = 1; i <= n; i++) {
            pre[i] = new double[w];
            relax(pre[i - 1], pre[i], bids.get(i - 1), honourGuarantees);
        }
        double best = pre[n][gpus];
        if (best == NEG) {
            return null;
        }
        int[] alloc = new int[n];
        int[] opt = new int[n];
        int g = gpus;
        for (int i = n; i >= 1; i--) {
            int o = choice(pre[i - 1], g, w, bids.get(i - 1), honourGuarantees);
            opt[i - 1] = o;
            alloc[i - 1] = bids.get(i - 1).sizes()[o];
            g -= alloc[i - 1];
        }
        // PF without i = max over x of pre[i - 1][x] + suf[i + 1][gpus - x], suf[i] the best of bids i.. on at most g GPUs:
        // the suffix rows are built from the last bid down, and each is needed once, so two rows roll
        double[] frac = new double[n];
        double[] suf = new double[w]; // suf[n + 1]: no bids, nothing used
        double[] next = new double[w];
        for (int i = n; i >= 1; i--) {
            Bid b = bids.get(i - 1);
            if (alloc[i - 1] == 0) {
                frac[i - 1] = 1;
            } else {
                double without = NEG;
                double[] p = pre[i - 1];
                for (int x = 0; x <= gpus; x++) {
                    double v = p[x] + suf[gpus - x];
                    if (v > without) {
                        without = v;
                    }
                }
                double othersWith = best - b.logValue(opt[i - 1]);
                frac[i - 1] = fraction(othersWith, without);
            }
            if (i > 1) {
                relax(suf, next, b, honourGuarantees);
                double[] t = suf;
                suf = next;
                next = t;
            }
        }
        return new Outcome(alloc, opt, frac, best, true);
    }

    /**
     * The option {@link #relax} picks for {@code g} GPUs: the first, in increasing size, whose value beats the best so far
     * by more than 1e-12 (recomputed for one g instead of stored for every g).
     */
    private static int choice(double[] prev, int g, int w, Bid b, boolean honourGuarantees) {
        int[] sizes = b.sizes();
        int first = honourGuarantees && b.guaranteed() ? 1 : 0;
        double bestV = NEG;
        int bestO = 0;
        for (int o = first; o < sizes.length && sizes[o] <= g; o++) {
            double pv = prev[g - sizes[o]];
            if (pv == NEG) {
                continue;
            }
            double v = pv + b.logValue(o);
            if (v > bestV + 1e-12) {
                bestV = v;
                bestO = o;
            }
        }
        return bestO; // also when the guaranteed app cannot be served at all: it takes nothing (option 0)
    }

    /**
     * next[g] = max over the bid's options o with size ≤ g of prev[g − size] + log v_o (the first option that beats the
     * best so far by more than 1e-12, options in increasing size). Options outside, GPU counts inside: the same
     * comparisons in the same order per g as a loop over g then options, in one pass over contiguous memory per option.
     */
    private static void relax(double[] prev, double[] next, Bid b, boolean honourGuarantees) {
        int[] sizes = b.sizes();
        int first = honourGuarantees && b.guaranteed() ? 1 : 0;
        int w = next.length;
        int o = first;
        if (o == 0) {
            // the empty bundle (size 0) is the first option: it beats the initial -inf wherever prev is finite, and
            // -inf + log v stays -inf elsewhere
            double lv = b.logValue(0);
            for (int g = 0; g < w; g++) {
                next[g] = prev[g] + lv;
            }
            o = 1;
        } else {
            Arrays.fill(next, NEG);
        }
        for (; o < sizes.length; o++) {
            int size = sizes[o];
            if (size >= w) {
                break; // sizes increase
            }
            double lv = b.logValue(o);
            // prev[x] = -inf gives v = -inf, which never beats anything: no test needed
            for (int g = size; g < w; g++) {
                double v = prev[g - size] + lv;
                if (v > next[g] + 1e-12) {
                    next[g] = v;
                }
            }
        }
        if (first == 1 && (sizes.length < 2 || sizes[1] > w - 1)) {
            // the guaranteed app cannot be served at all: it takes nothing rather than blocking everyone
            for (int g = 0; g < w; g++) {
                if (next[g] == NEG) {
                    next[g] = prev[g];
                }
            }
        }
    }

    private static double fraction(double othersWithI, double othersWithoutI) {
        if (othersWithoutI == NEG) {
            return 1; // without i no feasible allocation of the others exists (guarantees): i pays nothing
        }
        double c = Math.exp(othersWithI - othersWithoutI);
        return Math.max(0, Math.min(1, c));
    }

    // ---------------------------------------------------------------- greedy

    /** A step along a bid's concave hull: from option {@code from} to option {@code to}. */
    private record Step(int bid, int from, int to, double gainPerGpu, int size) {
    }

    private static Outcome greedy(List<Bid> bids, int gpus, boolean honourGuarantees) {
        int n = bids.size();
        int[] opt = new int[n];
        int left = gpus;
        // guarantees first: the smallest bundle of each guaranteed bid
        if (honourGuarantees) {
            for (int i = 0; i < n; i++) {
                Bid b = bids.get(i);
                if (b.guaranteed() && b.sizes().length > 1 && b.sizes()[1] <= gpus) {
                    if (b.sizes()[1] > left) {
                        return null;
                    }
                    opt[i] = 1;
                    left -= b.sizes()[1];
                }
            }
        }
        PriorityQueue<Step> heap = new PriorityQueue<>((a, c) -> {
            int x = Double.compare(c.gainPerGpu, a.gainPerGpu);
            return x != 0 ? x : Integer.compare(a.bid, c.bid);
        });
        for (int i = 0; i < n; i++) {
            Step s = nextStep(bids.get(i), i, opt[i], Integer.MAX_VALUE);
            if (s != null) {
                heap.add(s);
            }
        }
        List<Step> unserved = new ArrayList<>();
        while (!heap.isEmpty()) {
            Step s = heap.poll();
            if (s.size <= left) {
                opt[s.bid] = s.to;
                left -= s.size;
                Step nx = nextStep(bids.get(s.bid), s.bid, s.to, Integer.MAX_VALUE);
                if (nx != null) {
                    heap.add(nx);
                }
            } else {
                unserved.add(s);
                Step smaller = nextStep(bids.get(s.bid), s.bid, s.from, left);
                if (smaller != null) {
                    heap.add(smaller);
                }
            }
        }
        int[] alloc = new int[n];
        double obj = 0;
        for (int i = 0; i < n; i++) {
            alloc[i] = bids.get(i).sizes()[opt[i]];
            obj += bids.get(i).logValue(opt[i]);
        }
        // first-order hidden payments: the others would refill i's GPUs with the best unserved increments
        unserved.sort((a, c) -> {
            int x = Double.compare(c.gainPerGpu, a.gainPerGpu);
            return x != 0 ? x : Integer.compare(a.bid, c.bid);
        });
        double[] frac = new double[n];
        for (int i = 0; i < n; i++) {
            if (alloc[i] == 0) {
                frac[i] = 1;
                continue;
            }
            double room = alloc[i];
            double gain = 0;
            for (Step s : unserved) {
                if (room <= 0) {
                    break;
                }
                if (s.bid == i) {
                    continue;
                }
                double take = Math.min(room, s.size);
                gain += s.gainPerGpu * take;
                room -= take;
            }
            frac[i] = Math.max(0, Math.min(1, Math.exp(-gain)));
        }
        return new Outcome(alloc, opt, frac, obj, false);
    }

    /** The steepest step along the upper hull from option {@code from} that adds at most {@code maxSize} GPUs. */
    private static Step nextStep(Bid b, int bid, int from, int maxSize) {
        int[] s = b.sizes();
        double base = b.logValue(from);
        double best = 0;
        int to = -1;
        for (int o = from + 1; o < s.length; o++) {
            int d = s[o] - s[from];
            if (d > maxSize) {
                break;
            }
            double r = (b.logValue(o) - base) / d;
            if (r > best + 1e-15) {
                best = r;
                to = o;
            }
        }
        return to < 0 ? null : new Step(bid, from, to, best, s[to] - s[from]);
    }

    // ---------------------------------------------------------------- reference

    /**
     * The optimum of Σ log v by enumerating every combination of options (for tests and gap measurements on small
     * instances).
     *
     * @param bids the bids
     * @param gpus the GPUs offered
     * @return the best objective
     */
    public static double bruteForceObjective(List<Bid> bids, int gpus) {
        return brute(bids, 0, gpus);
    }

    private static double brute(List<Bid> bids, int i, int left) {
        if (i == bids.size()) {
            return 0;
        }
        Bid b = bids.get(i);
        double best = NEG;
        for (int o = 0; o < b.sizes().length && b.sizes()[o] <= left; o++) {
            double v = b.logValue(o) + brute(bids, i + 1, left - b.sizes()[o]);
            best = Math.max(best, v);
        }
        return best;
    }
}
