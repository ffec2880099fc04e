package io.fairway.sim.cli;

import io.fairway.core.Policies;
import io.fairway.sim.SimulationInput;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.SimulationResult;
import io.fairway.sim.Simulator;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Runs one input under several policies, one after the other, with a progress bar. */
final class Runs {
    private Runs() {
    }

    /**
     * @param requested policy names given on the command line (may hold comma-separated lists), or empty for all
     * @return the policy names, each checked to exist
     * @throws io.fairway.api.InvalidSpecException naming an unknown policy and the known ones
     */
    static List<String> policies(List<String> requested, Map<String, String> parameters) {
        List<String> names = new ArrayList<>();
        for (String r : requested == null ? List.<String>of() : requested) {
            for (String n : r.split(",")) {
                if (!n.isBlank() && !names.contains(n.trim())) {
                    names.add(n.trim());
                }
            }
        }
        if (names.isEmpty()) {
            names.addAll(Policies.available().keySet());
        }
        if (names.isEmpty()) {
            throw new FairwayCommand.UserException("no policy is installed on the class path");
        }
        for (String n : names) {
            Policies.create(n, parameters); // fails fast on an unknown name, before any run
        }
        return names;
    }

    /** @return the result under another name (as a row of the comparison table) */
    static SimulationResult renamed(SimulationResult r, String name) {
        io.fairway.sim.PolicyMetrics m = r.metrics();
        io.fairway.sim.PolicyMetrics n = new io.fairway.sim.PolicyMetrics(name, m.jobs(), m.skipped(), m.completed(), m.avgJctSeconds(),
                m.p50JctSeconds(), m.p95JctSeconds(), m.p99JctSeconds(), m.avgQueueingDelaySeconds(), m.p95QueueingDelaySeconds(),
                m.makespanSeconds(), m.gpuUtilization(), m.maxRho(), m.meanRho(), m.jainIndex(), m.preemptions(), m.lostWorkSeconds(), m.rounds(),
                m.schedulerMillisPerRound());
        return new SimulationResult(name, n, r.jobs(), r.skipped(), r.timeline(), r.totalGpus(), r.events(), r.actuations(), r.infra(), r.actuator());
    }

    static List<SimulationResult> run(SimulationInput input, List<String> policies, SimulationOptions options, PrintWriter err,
                                      boolean progress) {
        ProgressBar bar = new ProgressBar(err, progress);
        List<SimulationResult> results = new ArrayList<>();
        try {
            for (int i = 0; i < policies.size(); i++) {
                String p = policies.get(i);
                int index = i;
                results.add(Simulator.run(input, p, options,
                        f -> bar.update((index + f) / policies.size(), p + " (" + (index + 1) + "/" + policies.size() + ")")));
            }
        } finally {
            bar.finish();
        }
        return results;
    }
}
