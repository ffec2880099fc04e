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
    /** The estimate and the items of each app of {@link #rank}, by its position there (looked up once per round). */
    private final FinishTimeEstimator.AppView[] appAt;
    private final List<List<Item>> itemsAt;
    /** The app the starvation guard added to the bidders from outside the (1 − f) worst, or null. */
    private String addedWorst;
    /** How many apps of {@link #rank}, from its start, bid as the (1 − f) worst. */
    private int worstBidders;

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
        this.appAt = new FinishTimeEstimator.AppView[rank.size()];
        this.itemsAt = new ArrayList<>(rank.size());
        for (int i = 0; i < appAt.length; i++) {
            appAt[i] = r.apps.get(rank.get(i));
            itemsAt.add(r.items.get(rank.get(i)));
        }
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
        worstBidders = Math.min(n, bidders);
        participants.addAll(rank.subList(0, worstBidders));
        if (config.starvationGuard() && worst != null && !participants.contains(worst)) {
            participants.add(worst);
            addedWorst = worst;
        }
        for (int p = 0; p < participants.size(); p++) {
            String a = participants.get(p);
            boolean inRank = p < worstBidders; // the added app is looked up by name
            List<Option> os = Bids.options(r, inRank ? appAt[p] : r.apps.get(a), inRank ? itemsAt.get(p) : r.items.get(a), pool);
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
        // positions in rank: the bidders are its first worstBidders apps and the app the guard added (if in rank)
        int[] outside = new int[rank.size()];
        int[] inside = new int[rank.size()];
        int nOut = 0;
        int nIn = 0;
        for (int i = 0; i < rank.size(); i++) {
            if (i < worstBidders || addedWorst != null && addedWorst.equals(rank.get(i))) {
                inside[nIn++] = i;
            } else {
                outside[nOut++] = i;
            }
        }
        for (int i = 0; i < nOut; i++) {
            keepRunning(itemsAt.get(outside[i]));
        }
        for (int i = 0; i < nIn; i++) {
            keepRunning(itemsAt.get(inside[i]));
        }
        int[] order = new int[nOut + nIn];
        int nOrder = nearestToFinishFirst(outside, nOut, order, 0);
        nearestToFinishFirst(inside, nIn, order, nOrder);
        Set<String> startIds = new HashSet<>();
        for (Choice c : starts) {
            startIds.add(c.item().job().id());
        }
        for (int p : order) {
            for (Item it : itemsAt.get(p)) {
                if (left <= 0) {
                    return;
                }
                startOnLeftover(it, startIds);
            }
        }
    }

    /**
     * Appends a group of apps (positions in {@link #rank}) to {@link #startOrder} and to {@code order} from {@code at},
     * nearest to finishing at their current speeds first (T_sh − elapsed), then by name.
     *
     * @return the next free place in {@code order}
     */
    private int nearestToFinishFirst(int[] group, int n, int[] order, int at) {
        String[] names = new String[n];
        double[] keys = new double[n];
        for (int i = 0; i < n; i++) {
            FinishTimeEstimator.AppView a = appAt[group[i]];
            names[i] = rank.get(group[i]);
            keys[i] = a.sharedSeconds() - a.elapsed();
        }
        int[] sorted = PlanState.sortedByKey(names, keys);
        for (int i = 0; i < n; i++) {
            order[at + i] = group[sorted[i]];
            startOrder.add(names[sorted[i]]);
        }
        return at + n;
    }

    /** An app keeps its running jobs whose leases expired, while what is left covers them. */
    private void keepRunning(List<Item> items) {
        for (Item it : items) {
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
