package io.fairway.policies.themis;

import io.fairway.policies.themis.Bids.Choice;
import io.fairway.policies.themis.Bids.Item;
import io.fairway.policies.themis.Bids.Option;
import io.fairway.policies.themis.PartialAllocationAuction.Bid;
import io.fairway.policies.themis.PartialAllocationAuction.Outcome;
import io.fairway.policies.themis.ThemisPolicy.Config;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One round's auction of the GPUs on offer: the (1 − f) worst apps with demand bid ({@link Bids#options}), the arbiter
 * ({@link PartialAllocationAuction}) allocates, each winner keeps the fraction c_i of its bundle (rounded at random
 * between the two nearest bundle sizes), and the withheld and unallocated GPUs go to the apps outside the auction
 * first (work conservation), then to the bidders. Jobs that keep their leases are kept at once; the jobs to start are
 * returned for {@link Leases#startRevokingExpired}.
 */
final class LeaseAuction {
    private final PlanState r;
    /** The apps with demand from the worst app with a waiting job on, worst ρ first. */
    private final List<String> rank;
    private final List<String> participants = new ArrayList<>();
    private final List<Bid> bids = new ArrayList<>();
    private final List<List<Option>> options = new ArrayList<>();
    /** The jobs to start, winners' first, then those started on what is left. */
    private final List<Choice> starts = new ArrayList<>();
    /** The apps in the order they start jobs on what is left: outside the auction, then bidders, each nearest to finishing first. */
    private final List<String> startOrder = new ArrayList<>();
    /** The bundle sizes each bidder bid for, smallest and largest GPUs (for people to read; decisions never use it). */
    private final Map<String, long[]> bidSizes = new java.util.HashMap<>();
    /** GPUs of the pool not yet given out. */
    private long left;

    /** GPUs on offer to the auction. */
    private final long pool;

    /**
     * @param r the round
     * @param rank the apps with demand from the worst app with a waiting job on, worst ρ first
     * @param pool the GPUs on offer ({@link Offer#pool}, after the steps before the auction), more than zero
     */
    LeaseAuction(PlanState r, List<String> rank, long pool) {
        this.r = r;
        this.rank = rank;
        this.pool = pool;
        this.left = pool;
    }

    /**
     * Runs the auction and gives out what it leaves.
     *
     * @param worst the worst app with a waiting job, or null
     * @param guarantee whether the worst app is guaranteed its smallest bundle
     * @param why reasons by app, for the jobs left waiting
     * @return this
     */
    LeaseAuction run(String worst, boolean guarantee, Map<String, String> why) {
        bid(worst, guarantee);
        award(why);
        giveOutLeftover();
        return this;
    }

    /** @return the jobs to start, in order */
    List<Choice> starts() {
        return starts;
    }

    /** @return each bidder's smallest and largest bundle size, in GPUs */
    Map<String, long[]> bidSizes() {
        return bidSizes;
    }

    /** @return the apps in the order they start jobs on GPUs still free at the end */
    List<String> startOrder() {
        return startOrder;
    }

    /** The (1 − f) worst apps with demand (and the worst app, under the guard) bid for their bundle sizes. */
    private void bid(String worst, boolean guarantee) {
        Config config = r.config;
        int n = rank.size();
        int bidders = Math.max(1, (int) Math.ceil((1 - config.f()) * n - 1e-9));
        participants.addAll(rank.subList(0, Math.min(n, bidders)));
        if (config.starvationGuard() && worst != null && !participants.contains(worst)) {
            participants.add(worst);
        }
        for (String a : participants) {
            List<Option> os = Bids.options(r, r.apps.get(a), r.items.get(a), pool);
            int[] sizes = new int[os.size()];
            double[] vals = new double[os.size()];
            for (int i = 0; i < os.size(); i++) {
                sizes[i] = os.get(i).cost();
                vals[i] = os.get(i).valuation();
            }
            options.add(os);
            bidSizes.put(a, smallestAndLargest(sizes));
            bids.add(new Bid(a, sizes, vals, guarantee && a.equals(worst)));
        }
    }

    /**
     * The smallest positive and the largest bundle size (0 when there is none), in one pass: what two streams over the
     * sizes gave, without building them for each of thousands of bidders.
     */
    static long[] smallestAndLargest(int[] sizes) {
        int min = Integer.MAX_VALUE;
        int max = Integer.MIN_VALUE;
        for (int x : sizes) {
            if (x > 0 && x < min) {
                min = x;
            }
            max = Math.max(max, x);
        }
        return new long[] {min == Integer.MAX_VALUE ? 0 : min, max == Integer.MIN_VALUE ? 0 : max};
    }

    /** The arbiter allocates; each winner keeps its jobs and starts the rest of the bundle it realises. */
    private void award(Map<String, String> why) {
        Outcome o = PartialAllocationAuction.solve(bids, (int) Math.min(Integer.MAX_VALUE, pool), r.config.method());
        for (int i = 0; i < bids.size(); i++) {
            if (o.allocation()[i] == 0) {
                why.put(participants.get(i), "bid in the auction but won no GPUs");
                continue;
            }
            Option won = realise(bids.get(i), options.get(i), o.allocation()[i], o.fraction()[i]);
            for (Choice c : won.choices()) {
                if (c.item().keep()) {
                    r.keep(c.item().job().status());
                } else {
                    starts.add(c);
                }
            }
            left -= won.cost();
            if (won.cost() < o.allocation()[i]) {
                why.put(participants.get(i), String.format(Locale.ROOT, "won %d GPUs and kept %d (hidden payment c=%.2f)",
                        o.allocation()[i], won.cost(), o.fraction()[i]));
            }
        }
    }

    /**
     * Withheld and unallocated GPUs: apps outside the auction first, worst ρ first, then the bidders, keep their
     * running jobs (revoking them loses the work since their last checkpoint); then new jobs start on what is left, the
     * apps outside the auction nearest to finishing first (work conservation with the shortest-remaining order, good
     * for completion times; fairness was the auction's business), then the bidders.
     */
    private void giveOutLeftover() {
        Set<String> inAuction = new HashSet<>(participants);
        List<String> outside = new ArrayList<>();
        List<String> inside = new ArrayList<>();
        for (String a : rank) {
            (inAuction.contains(a) ? inside : outside).add(a);
        }
        for (List<String> group : List.of(outside, inside)) {
            for (String a : group) {
                keepRunning(a);
            }
        }
        for (List<String> group : List.of(outside, inside)) {
            List<String> g = new ArrayList<>(group);
            r.sortShortestRemainingFirst(g);
            startOrder.addAll(g);
        }
        Set<String> startIds = new HashSet<>();
        for (Choice c : starts) {
            startIds.add(c.item().job().id());
        }
        for (String a : startOrder) {
            for (Item it : r.items.get(a)) {
                if (left <= 0) {
                    return;
                }
                startOnLeftover(it, startIds);
            }
        }
    }

    /** An app keeps its running jobs whose leases expired, while what is left covers them. */
    private void keepRunning(String app) {
        for (Item it : r.items.get(app)) {
            if (it.keep() && !r.kept(it.job().id()) && it.minCost() <= left) {
                r.keep(it.job().status());
                left -= it.minCost();
            }
        }
    }

    /** A waiting job starts on what is left, at the largest size that fits in it. */
    private void startOnLeftover(Item it, Set<String> startIds) {
        String id = it.job().id();
        if (it.keep() || startIds.contains(id) || it.minCost() > left) {
            return;
        }
        int m = it.maxMembers();
        while (m > it.minMembers() && it.cost(m) > left) {
            m--;
        }
        starts.add(new Choice(it, m));
        startIds.add(id);
        left -= it.cost(m);
    }

    /**
     * The bundle a winner keeps: c × k GPUs, rounded at random between the two nearest bundle sizes it bid on (the
     * expected size is c × k); a guaranteed bid keeps at least its smallest bundle.
     */
    private Option realise(Bid bid, List<Option> os, int won, double c) {
        double x = r.config.hiddenPayments() ? c * won : won;
        if (bid.guaranteed() && bid.sizes().length > 1) {
            x = Math.max(x, bid.sizes()[1]);
        }
        // the jobs it already runs (its expired leases) are never withheld: revoking them would destroy work
        for (Option op : os) {
            if (op.cost() <= won && !op.choices().isEmpty() && op.choices().stream().allMatch(ch -> ch.item().keep())) {
                x = Math.max(x, op.cost());
            }
        }
        x = Math.min(x, won);
        Option lo = os.get(0);
        Option hi = null;
        for (Option op : os) {
            if (op.cost() <= x + 1e-9) {
                lo = op;
            } else if (op.cost() <= won) {
                hi = op;
                break;
            }
        }
        if (hi == null || lo.cost() == hi.cost()) {
            return lo;
        }
        double p = (x - lo.cost()) / (hi.cost() - lo.cost());
        return r.ctx.random().nextDouble() < p ? hi : lo;
    }
}
