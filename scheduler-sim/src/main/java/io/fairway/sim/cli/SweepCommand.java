package io.fairway.sim.cli;

import io.fairway.sim.SimJob;
import io.fairway.sim.SimulationOptions;
import io.fairway.sim.config.Defaults;
import io.fairway.sim.sweep.Sweep;
import io.fairway.sim.sweep.SweepReport;
import io.fairway.sim.sweep.SweepRow;
import io.fairway.sim.sweep.SweepSummary;
import io.fairway.sim.sweep.SweepWorkload;
import io.fairway.sim.sweep.SweepWorkloads;
import io.fairway.sim.trace.Trace;
import io.fairway.sim.trace.TraceFormat;
import io.fairway.sim.trace.Traces;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fairway sweep}: the robustness sweep. Per seed, a window of consecutive jobs drawn at random from a
 * whole Philly trace, at each offered load, with and without checkpoints, plus the Themis-like generator of that seed; once,
 * the Tiresias 60-job trace. Every policy on every workload; one row per run, a summary of the subject policy against
 * the others with the targets' verdicts, {@code --json} and {@code --plot}. Reproducible by seed. See
 * {@link SweepWorkloads} for how workloads are built.
 *
 * <pre>
 * ./fairway sweep --trace path/to/philly-trace.csv --seeds 21-60 --json sweep.json --plot sweep.png
 * </pre>
 *
 * <p>Without {@code --trace} the Philly windows are drawn from the bundled 1,500-job sample (a quick try; the whole
 * trace and where it comes from: {@code TRACE-ATTRIBUTION.md}, {@code docs/guides/traces.md}).
 */
@Command(name = "sweep", mixinStandardHelpOptions = true,
        description = "Robustness sweep: every policy on windows of a whole Philly trace drawn by seed (each at offered loads ~1x and ~3x "
                + "the cluster, with and without checkpoints), the Themis-like generator per seed and the Tiresias trace; one row per "
                + "run, a summary of --subject against every other policy with the verdicts on its targets, per job and per app side by side.")
public final class SweepCommand implements Runnable {
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(s|sec|m|min|h)?", Pattern.CASE_INSENSITIVE);
    private static final Pattern RANGE = Pattern.compile("(\\d+)(?:-(\\d+))?");
    private static final List<String> WORKLOADS = List.of("philly", "themis", "tiresias");
    /** The Tiresias trace's file name, looked for beside the Philly trace when --tiresias-trace is not given. */
    static final String TIRESIAS_FILE = "tiresias-60job.csv";

    @Spec
    private CommandSpec spec;

    @Option(names = "--trace", paramLabel = "FILE", description = "The whole Philly trace (timestamp,duration,num_gpus,gpu_time,cluster), "
            + "e.g. path/to/philly-trace.csv (not in the repository: TRACE-ATTRIBUTION.md says where it comes from). "
            + "Without it, the philly windows are drawn from the bundled 1,500-job sample.")
    Path trace;

    @Option(names = "--tiresias-trace", paramLabel = "FILE",
            description = "The Tiresias 60-job trace (default: " + TIRESIAS_FILE + " beside --trace, when it is there).")
    Path tiresiasTrace;

    @Option(names = "--seeds", paramLabel = "RANGES", defaultValue = "21-60",
            description = "Seeds: ranges and numbers, e.g. 21-60 or 1,5,9-12. Seeds 1-20 are the tuning seeds. Default: ${DEFAULT-VALUE}.")
    String seeds;

    @Option(names = "--policy", paramLabel = "NAME[:KEY=VALUE,...]", description = "Policies, as for simulate: NAME or "
            + "NAME:KEY=VALUE,KEY=VALUE, separated by \",\" or \";\" (a token with \"=\" is a parameter of the policy before it), "
            + "e.g. themis,themis:f=0.5,srtf (default: every installed policy). "
            + "best-effort-fifo (or strict-fifo) is added when missing: its utilisation decides which workloads are contended.")
    List<String> policies = new ArrayList<>();

    @Option(names = "--subject", paramLabel = "NAME", defaultValue = "themis",
            description = "The policy the summary judges against the others. Default: ${DEFAULT-VALUE}.")
    String subject;

    @Option(names = "--workloads", split = ",", paramLabel = "KIND", defaultValue = "philly,themis,tiresias",
            description = "Which workloads: philly (windows of --trace), themis (generated, per seed), tiresias (once). Default: ${DEFAULT-VALUE}.")
    List<String> workloads;

    @Option(names = "--jobs", paramLabel = "N", defaultValue = "1500", description = "Jobs per Philly window. Default: ${DEFAULT-VALUE}.")
    int jobs;

    @Option(names = "--max-gpus", paramLabel = "N", defaultValue = "32",
            description = "Only jobs of at most N GPUs are drawn. Default: ${DEFAULT-VALUE}.")
    int maxGpus;

    @Option(names = "--loads", split = ",", paramLabel = "LOAD", defaultValue = "1,3",
            description = "Offered loads of each Philly window (work ÷ cluster capacity over the window's arrival span); the cluster is "
                    + "rounded to whole 8-GPU nodes and the load achieved is reported. Default: ${DEFAULT-VALUE}.")
    List<Double> loads;

    @Option(names = "--checkpoints", split = ",", paramLabel = "off|on", defaultValue = "off,on",
            description = "Run each Philly window without checkpoints (off, as in the trace) and/or with them (on). Default: ${DEFAULT-VALUE}.")
    List<String> checkpoints;

    @Option(names = "--checkpoint-interval", paramLabel = "DURATION", defaultValue = "10m",
            description = "With checkpoints, every Philly job checkpoints this often (free to take, " + (int) SweepWorkloads.RESTORE_SECONDS
                    + " s to restore), e.g. 10m, 600s, 1h. Default: ${DEFAULT-VALUE}.")
    String checkpointInterval;

    @Option(names = "--threads", paramLabel = "N", description = "Runs at once (default: the available processors).")
    Integer threads;

    @Option(names = "--json", paramLabel = "FILE", description = "Write the rows and the summary as JSON.")
    Path json;

    @Option(names = "--plot", paramLabel = "FILE.png", description = "Write a PNG: per workload, the subject's max ρ and avg JCT against the "
            + "lowest/best baseline's.")
    Path plot;

    @Option(names = "--tradeoff", paramLabel = "FILE.png", description = "Write a PNG of the subject and each of its variants (policies "
            + "run as SUBJECT:KEY=VALUE, judged against the same baselines): worst avg JCT ÷ the best baseline's against worst max ρ ÷ the "
            + "lowest baseline's, per job, with the targets' bounds.")
    Path tradeoff;

    @Option(names = "--no-table", description = "Do not print the row of every run (the summary is printed).")
    boolean noTable;

    @Option(names = "--dry-run", description = "List the workloads (cluster size, load achieved) without running them.")
    boolean dryRun;

    @Mixin
    ProgressOption progress = new ProgressOption();

    @Option(names = "--contended-by", paramLabel = "makespan|arrivals", defaultValue = "makespan",
            description = "A workload is contended when FIFO's GPU utilisation is >= 60 %% over the makespan (the default rule) or over "
                    + "the arrival span only (not diluted by the long tail of the last jobs to finish). Default: ${DEFAULT-VALUE}.")
    String contendedBy;

    @Option(names = "--rows", split = ",", paramLabel = "FILE",
            description = "Do not run: summarise (and --json, --plot) the rows of the --json files of earlier sweeps, e.g. a sweep run in "
                    + "parts (--seeds 21-40, then 41-60).")
    List<Path> rowsFrom = new ArrayList<>();

    /** Created by picocli. */
    public SweepCommand() {
    }

    @Override
    public void run() {
        PrintWriter out = spec.commandLine().getOut();
        boolean byArrivals = switch (contendedBy.trim().toLowerCase(Locale.ROOT)) {
            case "makespan" -> false;
            case "arrivals" -> true;
            default -> throw new FairwayCommand.UserException("--contended-by must be makespan or arrivals, was \"" + contendedBy + "\"");
        };
        if (!rowsFrom.isEmpty()) {
            List<SweepRow> rows = Sweep.withContention(mergedRows(rowsFrom), byArrivals);
            out.printf(Locale.ROOT, "Rows of %s: %d runs%n", rowsFrom, rows.size());
            report(out, rows);
            out.flush();
            return;
        }
        List<Long> seedList = seeds(seeds);
        List<String> kinds = kinds();
        List<Boolean> ckpt = checkpointSettings();
        double interval = durationSeconds("--checkpoint-interval", checkpointInterval);
        int nThreads = checkNumbers();
        List<String> names = policyNames(out);

        List<SweepWorkload> plan = new ArrayList<>();
        if (kinds.contains("philly")) {
            plan.addAll(phillyWindows(out, seedList, ckpt, interval));
        }
        if (kinds.contains("themis")) {
            for (long s : seedList) {
                plan.add(SweepWorkloads.themis(s));
            }
        }
        if (kinds.contains("tiresias")) {
            SweepWorkload t = tiresias(out, seedList);
            if (t != null) {
                plan.add(t);
            }
        }
        if (plan.isEmpty()) {
            throw new FairwayCommand.UserException("nothing to run: --workloads " + String.join(",", kinds) + " gave no workload");
        }
        out.printf(Locale.ROOT, "Sweep: %d workloads × %d policies = %d runs on %d thread(s); seeds %s; policies %s; subject %s%n", plan.size(),
                names.size(), plan.size() * names.size(), nThreads, seeds, String.join(", ", names), subject);
        if (seedList.stream().anyMatch(s -> s >= 1 && s <= 20)) {
            out.println("Note: seeds 1-20 are the tuning seeds; a target met on them is not met (report on 21-60).");
        }
        if (dryRun) {
            for (SweepWorkload w : plan) {
                out.printf(Locale.ROOT, "  %-24s %5d GPUs %5d jobs  load %.2f (asked %.2f)  %s%n", w.id(), w.gpus(), w.jobs(), w.load(),
                        w.requestedLoad(), w.input().name());
            }
            out.flush();
            return;
        }
        out.flush();

        long t0 = System.nanoTime();
        ProgressBar bar = new ProgressBar(spec.commandLine().getErr(), progress.show());
        List<SweepRow> rows;
        try {
            // names are the labels Runs.policies checked: NAME or NAME:KEY=VALUE,... (the shared --policy syntax)
            List<Sweep.Policy> runPolicies = names.stream().map(io.fairway.sim.PolicySpec::parse)
                    .map(p -> new Sweep.Policy(p.label(), p.name(), p.parameters())).toList();
            rows = Sweep.withContention(Sweep.runPolicies(plan, runPolicies, SimulationOptions.DEFAULTS, nThreads,
                    (fraction, done, runs, label) -> bar.update(fraction, done + "/" + runs + " runs, " + label)), byArrivals);
        } finally {
            bar.finish();
        }
        double wall = (System.nanoTime() - t0) / 1e9;
        out.println();
        report(out, rows);
        out.printf(Locale.ROOT, "swept in %.1f s wall time on %d thread(s)%n", wall, nThreads);
        out.flush();
    }

    /** Checks the numeric options. @return the number of threads to run on */
    private int checkNumbers() {
        if (jobs < 2) {
            throw new FairwayCommand.UserException("--jobs must be >= 2, was " + jobs);
        }
        if (maxGpus < 1) {
            throw new FairwayCommand.UserException("--max-gpus must be >= 1, was " + maxGpus);
        }
        for (Double l : loads) {
            if (l == null || !(l > 0) || l.isInfinite()) {
                throw new FairwayCommand.UserException("--loads must be > 0, was " + l);
            }
        }
        int nThreads = threads == null ? Runtime.getRuntime().availableProcessors() : threads;
        if (nThreads < 1) {
            throw new FairwayCommand.UserException("--threads must be >= 1, was " + nThreads);
        }
        return nThreads;
    }

    /** The policies run, checked against the subject; best-effort-fifo added when none is FIFO (it decides contention). */
    private List<String> policyNames(PrintWriter out) {
        List<String> names = new ArrayList<>(Runs.policies(policies, Map.of()));
        if (!names.contains(subject)) {
            throw new FairwayCommand.UserException("--subject " + subject + " is not among the policies run: " + String.join(", ", names));
        }
        if (names.size() < 2) {
            throw new FairwayCommand.UserException("a sweep needs at least one policy besides the subject " + subject);
        }
        if (Sweep.contentionFifo(names) == null) {
            names.addAll(Runs.policies(List.of("best-effort-fifo"), Map.of()));
            out.println("(best-effort-fifo added: its GPU utilisation decides which workloads are contended)");
        }
        return names;
    }

    /** The philly workloads: windows of --jobs consecutive jobs of the trace (or the bundled sample), per seed and load. */
    private List<SweepWorkload> phillyWindows(PrintWriter out, List<Long> seedList, List<Boolean> ckpt, double interval) {
        Trace t;
        String from;
        if (trace == null) {
            t = Defaults.trace();
            from = "Bundled sample " + Traces.SAMPLE_RESOURCE;
            out.println("(no --trace: philly windows drawn from the bundled " + t.jobs().size() + "-job sample; for the whole Philly "
                    + "trace, see TRACE-ATTRIBUTION.md and give --trace FILE)");
        } else {
            requireFile("--trace", trace);
            t = Traces.read(trace, null);
            from = "Trace " + trace;
        }
        List<SimJob> eligible = SweepWorkloads.eligible(t, maxGpus);
        out.printf(Locale.ROOT, "%s: %d jobs, %d of them of at most %d GPUs; windows of %d consecutive jobs%n", from, t.jobs().size(),
                eligible.size(), maxGpus, jobs);
        if (eligible.size() < jobs) {
            throw new FairwayCommand.UserException((trace == null ? "the bundled sample" : "--trace " + trace) + " has " + eligible.size()
                    + " jobs of at most " + maxGpus + " GPUs, fewer than --jobs " + jobs);
        }
        List<SweepWorkload> windows = new ArrayList<>();
        for (long s : seedList) {
            windows.addAll(SweepWorkloads.phillyWindows(eligible, s, jobs, maxGpus, loads, ckpt, interval));
        }
        return windows;
    }

    /** The tiresias workload, from --tiresias-trace or the file beside --trace; null (and a note) when there is neither. */
    private SweepWorkload tiresias(PrintWriter out, List<Long> seedList) {
        Path tt = tiresiasTrace;
        if (tt != null) {
            requireFile("--tiresias-trace", tt);
        } else if (trace != null && trace.toAbsolutePath().getParent() != null
                && Files.isRegularFile(trace.toAbsolutePath().getParent().resolve(TIRESIAS_FILE))) {
            tt = trace.toAbsolutePath().getParent().resolve(TIRESIAS_FILE);
        }
        if (tt == null) {
            out.println("(tiresias workload left out: " + (trace == null ? "" : "no " + TIRESIAS_FILE + " beside --trace; ")
                    + "give --tiresias-trace FILE)");
            return null;
        }
        return SweepWorkloads.fixed("tiresias-60", "tiresias", Traces.read(tt, TraceFormat.TIRESIAS), seedList.get(0));
    }

    private void report(PrintWriter out, List<SweepRow> allRows) {
        if (!noTable) {
            out.print(SweepReport.table(allRows));
            out.println();
        }
        // variants of the subject (SUBJECT:KEY=VALUE) are judged against the baselines, never counted as baselines
        List<String> variants = new ArrayList<>();
        for (SweepRow r : allRows) {
            if (r.policy().startsWith(subject + ":") && !variants.contains(r.policy())) {
                variants.add(r.policy());
            }
        }
        List<SweepRow> rows = allRows.stream().filter(r -> !variants.contains(r.policy())).toList();
        SweepSummary summary = SweepSummary.of(rows, subject);
        SweepSummary perApp = SweepSummary.perApp(rows, subject);
        Map<String, SweepSummary[]> byVariant = new LinkedHashMap<>();
        byVariant.put(subject, new SweepSummary[] {summary, perApp});
        for (String v : variants) {
            List<SweepRow> vr = allRows.stream().filter(r -> r.policy().equals(v) || !variants.contains(r.policy()) && !r.policy().equals(subject))
                    .toList();
            byVariant.put(v, new SweepSummary[] {SweepSummary.of(vr, v), SweepSummary.perApp(vr, v)});
        }
        out.print(SweepReport.summary(summary, perApp));
        if (!variants.isEmpty()) {
            out.println();
            out.print(SweepReport.variants(byVariant));
        }
        if (tradeoff != null) {
            SweepReport.writeTradeoff(tradeoff, byVariant);
            out.println("trade-off plot: " + tradeoff);
        }
        out.println();
        out.print(timings(rows));
        if (json != null) {
            SweepReport.writeJson(json, allRows, summary, perApp);
            out.println("json: " + json);
        }
        if (plot != null) {
            SweepReport.writePlot(plot, summary, perApp);
            out.println("plot: " + plot);
        }
        out.flush();
    }

    /** @return the rows of several sweeps' JSON files, each (workload, policy) once */
    static List<SweepRow> mergedRows(List<Path> files) {
        List<SweepRow> rows = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (Path f : files) {
            requireFile("--rows", f);
            for (SweepRow r : SweepReport.readRows(f)) {
                if (!seen.add(r.workload() + " " + r.policy())) {
                    throw new FairwayCommand.UserException("--rows: " + r.workload() + " under " + r.policy() + " appears twice (again in " + f
                            + "); give each run once (the Tiresias trace runs once per sweep: leave it out of the other parts with "
                            + "--workloads philly,themis)");
                }
                rows.add(r);
            }
        }
        return rows;
    }

    /** @return mean CPU and wall seconds per run, by workload kind and policy */
    static String timings(List<SweepRow> rows) {
        Map<String, Map<String, double[]>> byKind = new LinkedHashMap<>();
        for (SweepRow r : rows) {
            double[] a = byKind.computeIfAbsent(r.kind(), k -> new LinkedHashMap<>()).computeIfAbsent(r.policy(), k -> new double[3]);
            a[0] += r.cpuSeconds();
            a[1] += r.wallSeconds();
            a[2]++;
        }
        StringBuilder sb = new StringBuilder("Time per run (mean CPU / wall seconds):");
        for (Map.Entry<String, Map<String, double[]>> k : byKind.entrySet()) {
            sb.append(String.format(Locale.ROOT, "%n  %-9s", k.getKey()));
            for (Map.Entry<String, double[]> p : k.getValue().entrySet()) {
                double[] a = p.getValue();
                sb.append(String.format(Locale.ROOT, " %s %.1f/%.1f;", p.getKey(), a[0] / a[2], a[1] / a[2]));
            }
        }
        return sb.append('\n').toString();
    }

    private static void requireFile(String option, Path p) {
        if (!Files.isRegularFile(p)) {
            throw new FairwayCommand.UserException(option + " " + p + ": no such file");
        }
    }

    private List<String> kinds() {
        List<String> k = new ArrayList<>();
        for (String w : workloads) {
            String n = w.trim().toLowerCase(Locale.ROOT);
            if (!WORKLOADS.contains(n)) {
                throw new FairwayCommand.UserException("--workloads: unknown workload \"" + w + "\"; known: " + String.join(", ", WORKLOADS));
            }
            if (!k.contains(n)) {
                k.add(n);
            }
        }
        return k;
    }

    private List<Boolean> checkpointSettings() {
        List<Boolean> c = new ArrayList<>();
        for (String s : checkpoints) {
            Boolean b = switch (s.trim().toLowerCase(Locale.ROOT)) {
                case "off", "no", "false" -> Boolean.FALSE;
                case "on", "yes", "true" -> Boolean.TRUE;
                default -> throw new FairwayCommand.UserException("--checkpoints takes off and/or on, was \"" + s + "\"");
            };
            if (!c.contains(b)) {
                c.add(b);
            }
        }
        return c;
    }

    /**
     * @param spec seeds as ranges and numbers: {@code 21-60}, {@code 1,5,9-12}
     * @return the seeds, in order, without repeats
     */
    static List<Long> seeds(String spec) {
        List<Long> out = new ArrayList<>();
        for (String part : spec.split(",")) {
            Matcher m = RANGE.matcher(part.trim());
            if (!m.matches()) {
                throw new FairwayCommand.UserException("--seeds: \"" + part.trim() + "\" is not a seed or a range like 21-60");
            }
            long from = Long.parseLong(m.group(1));
            long to = m.group(2) == null ? from : Long.parseLong(m.group(2));
            if (to < from || to - from > 100_000) {
                throw new FairwayCommand.UserException("--seeds: range \"" + part.trim() + "\" must go up, by at most 100000 seeds");
            }
            for (long s = from; s <= to; s++) {
                if (!out.contains(s)) {
                    out.add(s);
                }
            }
        }
        if (out.isEmpty()) {
            throw new FairwayCommand.UserException("--seeds: no seed in \"" + spec + "\"");
        }
        return out;
    }

    /**
     * @param option the option, for the error
     * @param text a duration: seconds, or a number with s, m (min) or h
     * @return it in seconds, &gt; 0
     */
    static double durationSeconds(String option, String text) {
        Matcher m = DURATION.matcher(text.trim());
        if (!m.matches()) {
            throw new FairwayCommand.UserException(option + " must be a duration like 10m, 600s or 1h, was \"" + text + "\"");
        }
        double v = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2).toLowerCase(Locale.ROOT);
        double s = switch (unit) {
            case "m", "min" -> v * 60;
            case "h" -> v * 3600;
            default -> v;
        };
        if (!(s > 0)) {
            throw new FairwayCommand.UserException(option + " must be > 0, was \"" + text + "\"");
        }
        return s;
    }
}
