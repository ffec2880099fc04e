package io.fairway.sim.cli;

import io.fairway.core.Policies;
import io.fairway.sim.PolicySpec;
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
     * @param requested policies given on the command line, each in {@link PolicySpec}'s syntax (several per value, or the
     *     option repeated), or empty for every installed policy
     * @param parameters ignored (kept for callers); parameters come with each policy, {@code name:key=value}
     * @return the policies' labels ({@link PolicySpec#label()}), each checked: an installed policy, known parameters
     * @throws io.fairway.api.InvalidSpecException naming an unknown policy and the known ones, or an unknown parameter and
     *     the known ones
     */
    static List<String> policies(List<String> requested, Map<String, String> parameters) {
        List<PolicySpec> specs = PolicySpec.parseAll(requested);
        if (specs.isEmpty()) {
            for (String n : Policies.available().keySet()) {
                specs.add(PolicySpec.of(n));
            }
        }
        if (specs.isEmpty()) {
            throw new FairwayCommand.UserException("no policy is installed on the class path");
        }
        List<String> labels = new ArrayList<>();
        for (PolicySpec p : specs) {
            p.check(); // fails fast on an unknown name or parameter, before any run
            labels.add(p.label());
        }
        return labels;
    }

    /** @return the result under another name (as a row of the comparison table) */
    static SimulationResult renamed(SimulationResult r, String name) {
        io.fairway.sim.PolicyMetrics m = r.metrics();
        io.fairway.sim.PolicyMetrics n = new io.fairway.sim.PolicyMetrics(name, m.jobs(), m.skipped(), m.completed(), m.avgJctSeconds(),
                m.p50JctSeconds(), m.p95JctSeconds(), m.p99JctSeconds(), m.avgQueueingDelaySeconds(), m.p95QueueingDelaySeconds(),
                m.makespanSeconds(), m.gpuUtilization(), m.maxRho(), m.meanRho(), m.jainIndex(), m.preemptions(), m.lostWorkSeconds(), m.rounds(),
                m.schedulerMillisPerRound());
        List<io.fairway.sim.EventRecord> events = r.events().isEmpty() ? r.events() : r.events().stream()
                .map(e -> new io.fairway.sim.EventRecord(name, e.timeMillis(), e.job(), e.type(), e.reason())).toList();
        return new SimulationResult(name, n, r.jobs(), r.skipped(), r.timeline(), r.totalGpus(), events, r.actuations(), r.infra(), r.actuator());
    }

    /**
     * Runs each policy (a {@link PolicySpec} label: its parameters go over {@code options}') with a progress bar; rows of a
     * policy with parameters are named by its label.
     */
    static List<SimulationResult> run(SimulationInput input, List<String> policies, SimulationOptions options, PrintWriter err,
                                      boolean progress) {
        ProgressBar bar = new ProgressBar(err, progress);
        List<SimulationResult> results = new ArrayList<>();
        try {
            for (int i = 0; i < policies.size(); i++) {
                String p = policies.get(i);
                PolicySpec spec = PolicySpec.parse(p);
                int index = i;
                SimulationResult r = Simulator.run(input, spec.name(), spec.parameters().isEmpty() ? options : spec.applyTo(options),
                        f -> bar.update((index + f) / policies.size(), p + " (" + (index + 1) + "/" + policies.size() + ")"));
                results.add(spec.parameters().isEmpty() ? r : renamed(r, spec.label()));
            }
        } finally {
            bar.finish();
        }
        return results;
    }
}
