package io.fairway.sim.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code fairway ctl}: the operator command line over the visibility API of a simulator ({@code simulate --serve}),
 * the Kubernetes controller or the multi-cluster manager ({@code --ui-port}). Text tables for people, {@code -o json}
 * (the API's own answers) for scripts.
 */
@Command(name = "ctl", mixinStandardHelpOptions = true,
        description = "Operator command line over a Fairway visibility API (simulate --serve, the controller's or manager's --ui-port).",
        subcommands = {CtlCommand.Queues.class, CtlCommand.Pending.class})
public final class CtlCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Option(names = "--server", scope = ScopeType.INHERIT, paramLabel = "URL", description = "The API's base URL (default: http://127.0.0.1:8080).")
    String server = "http://127.0.0.1:8080";

    @Option(names = "--token-file", scope = ScopeType.INHERIT, paramLabel = "FILE", description = "A file with the bearer token for the write verbs "
            + "(default: $FAIRWAY_UI_TOKEN).")
    Path tokenFile;

    @Option(names = "--timeout", scope = ScopeType.INHERIT, paramLabel = "SECONDS", description = "The longest one request may take, "
            + "from connecting to the last byte of the answer (default: ${DEFAULT-VALUE}; watch: until the stream's head).")
    double timeoutSeconds = 30;

    @Option(names = {"-o", "--output"}, scope = ScopeType.INHERIT, paramLabel = "FORMAT", description = "text (default) or json (the API's answers, one per line).")
    String output = "text";

    /** Created by picocli. */
    public CtlCommand() {
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    boolean json() {
        String o = output.toLowerCase(Locale.ROOT);
        if (!o.equals("json") && !o.equals("text")) {
            throw new FairwayCommand.UserException("-o must be text or json, was '" + output + "'");
        }
        return o.equals("json");
    }

    CtlClient client(boolean write) {
        String token = null;
        if (tokenFile != null) {
            try {
                token = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                throw new FairwayCommand.UserException("--token-file: cannot read " + tokenFile + ": " + e.getMessage());
            }
        } else if (write) {
            token = System.getenv("FAIRWAY_UI_TOKEN");
        }
        if (!(timeoutSeconds > 0 && timeoutSeconds <= 3600)) {
            throw new FairwayCommand.UserException("--timeout must be in (0, 3600] seconds, was " + timeoutSeconds);
        }
        return new CtlClient(server, token, java.time.Duration.ofMillis(Math.round(timeoutSeconds * 1000)), spec.commandLine().getErr());
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    static String seconds(long millis) {
        return millis < 0 ? "-" : String.format(Locale.ROOT, "%.0fs", millis / 1000.0);
    }

    static String text(JsonNode n) {
        return n == null || n.isNull() ? "-" : n.asText();
    }

    /**
     * Prints rows as columns as wide as their widest cell, two spaces apart, through picocli's {@code TextTable}
     * (no colours); the last column is as wide as its widest cell, so nothing wraps, and no line ends in spaces.
     */
    static void table(PrintWriter out, List<String[]> rows) {
        int cols = rows.get(0).length;
        CommandLine.Help.Column[] columns = new CommandLine.Help.Column[cols];
        for (int i = 0; i < cols; i++) {
            int w = 1;
            for (String[] r : rows) {
                w = Math.max(w, r[i].length());
            }
            columns[i] = new CommandLine.Help.Column(i == cols - 1 ? w : w + 2, 0, CommandLine.Help.Column.Overflow.SPAN);
        }
        CommandLine.Help.TextTable t = CommandLine.Help.TextTable.forColumns(CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF), columns);
        for (String[] r : rows) {
            t.addRowValues(r);
        }
        for (String line : t.toString().split("\n", -1)) {
            if (!line.isBlank()) {
                out.println(line.stripTrailing());
            }
        }
        out.flush();
    }

    /** {@code ctl queues}: ClusterQueues with usage against nominal quota per flavor and resource. */
    @Command(name = "queues", mixinStandardHelpOptions = true, description = "ClusterQueues with usage against nominal quota, borrowing and pending jobs.")
    static final class Queues implements Runnable {
        @ParentCommand
        CtlCommand ctl;

        @Override
        public void run() {
            JsonNode q = ctl.client(false).get("/clusterqueues");
            if (ctl.json()) {
                ctl.out().println(q);
                ctl.out().flush();
                return;
            }
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"QUEUE", "COHORT", "PENDING", "ADMITTED", "FLAVOR", "RESOURCE", "USED/NOMINAL", "BORROWED", "STATUS"});
            for (JsonNode c : q.get("items")) {
                boolean first = true;
                for (JsonNode r : c.get("resources")) {
                    rows.add(new String[] {first ? c.get("name").asText() : "", first ? text(c.get("cohort")) : "",
                        first ? c.get("pending").asText() : "", first ? c.get("holding").asText() : "", r.get("flavor").asText(),
                        r.get("resource").asText(), r.get("used").asText() + "/" + r.get("nominal").asText(), r.get("borrowed").asText(),
                        first ? (c.get("stopped").asBoolean() ? "stopped" : "active") : ""});
                    first = false;
                }
                if (first) {
                    rows.add(new String[] {c.get("name").asText(), text(c.get("cohort")), c.get("pending").asText(), c.get("holding").asText(),
                        "-", "-", "-", "-", c.get("stopped").asBoolean() ? "stopped" : "active"});
                }
            }
            table(ctl.out(), rows);
        }
    }

    /** {@code ctl pending}: pending jobs in the engine's order, with position and reason. */
    @Command(name = "pending", mixinStandardHelpOptions = true, description = "Pending jobs in the order the scheduler considers them, "
            + "with position and reason (every ClusterQueue, or one).")
    static final class Pending implements Runnable {
        @ParentCommand
        CtlCommand ctl;

        @Option(names = "--queue", paramLabel = "CLUSTERQUEUE", description = "Only this ClusterQueue.")
        String queue;

        @Option(names = "--local-queue", paramLabel = "NAMESPACE/NAME", description = "Only this LocalQueue (positions within it).")
        String localQueue;

        @Option(names = "--limit", paramLabel = "N", description = "At most N jobs per queue (1..1000, default 20).")
        int limit = 20;

        @Option(names = "--offset", paramLabel = "N", description = "Skip the first N jobs of each queue.")
        int offset;

        @Override
        public void run() {
            CtlClient c = ctl.client(false);
            boolean json = ctl.json();
            List<String> paths = new ArrayList<>();
            String page = "/pending?offset=" + offset + "&limit=" + limit;
            if (localQueue != null) {
                String[] p = localQueue.split("/", -1);
                if (p.length != 2 || p[0].isEmpty() || p[1].isEmpty()) {
                    throw new FairwayCommand.UserException("--local-queue must be NAMESPACE/NAME, was '" + localQueue + "'");
                }
                paths.add("/localqueues/" + CtlClient.seg(p[0]) + "/" + CtlClient.seg(p[1]) + page);
            } else if (queue != null) {
                paths.add("/clusterqueues/" + CtlClient.seg(queue) + page);
            } else {
                for (JsonNode q : c.get("/clusterqueues").get("items")) {
                    paths.add("/clusterqueues/" + CtlClient.seg(q.get("name").asText()) + page);
                }
            }
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"QUEUE", "POS", "JOB", "PRIORITY", "GPUS", "WAITING SINCE", "REASON"});
            for (String p : paths) {
                JsonNode a = c.get(p);
                if (json) {
                    ctl.out().println(a);
                    continue;
                }
                String name = a.has("clusterQueue") ? a.get("clusterQueue").asText() : a.get("localQueue").asText();
                for (JsonNode j : a.get("items")) {
                    JsonNode r = j.get("reason");
                    rows.add(new String[] {name, j.get("position").asText(), j.get("id").asText(), j.get("priority").asText(), j.get("gpus").asText(),
                        seconds(j.get("waitingSinceMillis").asLong()), r == null || r.isNull() ? "-" : reason(r)});
                }
                int shown = a.get("items").size();
                if (a.get("total").asInt() > offset + shown) {
                    rows.add(new String[] {name, "", "(" + (a.get("total").asInt() - offset - shown) + " more)", "", "", "", ""});
                }
            }
            if (json) {
                ctl.out().flush();
                return;
            }
            table(ctl.out(), rows);
        }
    }

    /** {@code ctl jobs}: every job, searched, filtered, sorted and paged by the server. */
    @Command(name = "jobs", mixinStandardHelpOptions = true, description = "Every job, whatever its state: search, filters, sorting and pages.")
    void jobs(@Option(names = "--search", paramLabel = "TEXT", description = "Jobs whose id or job set contains TEXT.") String q,
              @Option(names = "--state", paramLabel = "STATE[,STATE]", description = "Only these states (e.g. PENDING,RUNNING).") String state,
              @Option(names = "--queue", paramLabel = "CLUSTERQUEUE", description = "Only this ClusterQueue.") String queue,
              @Option(names = "--namespace", paramLabel = "NAMESPACE", description = "Only this namespace.") String namespace,
              @Option(names = "--job-set", paramLabel = "JOBSET", description = "Only this job set.") String jobSet,
              @Option(names = "--sort", paramLabel = "COLUMN", description = "submitted (default), id, state, priority, stateSince, namespace, "
                      + "jobSet, owner, gpus or clusterQueue.") String sort,
              @Option(names = "--desc", description = "Largest first.") boolean desc,
              @Option(names = "--limit", paramLabel = "N", defaultValue = "50", description = "At most N jobs (1..1000, default ${DEFAULT-VALUE}).") int limit,
              @Option(names = "--offset", paramLabel = "N", defaultValue = "0", description = "Skip the first N.") int offset) {
        StringBuilder path = new StringBuilder("/jobs?limit=" + limit + "&offset=" + offset);
        String[][] params = {{"q", q}, {"state", state}, {"clusterQueue", queue}, {"namespace", namespace}, {"jobSet", jobSet}, {"sort", sort},
            {"order", desc ? "desc" : null}};
        for (String[] p : params) {
            if (p[1] != null) {
                path.append('&').append(p[0]).append('=').append(CtlClient.seg(p[1]));
            }
        }
        JsonNode page = client(false).get(path.toString());
        if (json()) {
            out().println(page);
            out().flush();
            return;
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"JOB", "STATE", "SINCE", "QUEUE", "NAMESPACE/LOCALQUEUE", "JOB SET", "PRIORITY", "GPUS"});
        for (JsonNode j : page.get("items")) {
            rows.add(new String[] {j.get("id").asText(), j.get("state").asText(), seconds(j.get("stateSinceMillis").asLong()), text(j.get("clusterQueue")),
                j.get("namespace").asText() + "/" + j.get("localQueue").asText(), j.get("jobSet").asText(), j.get("priority").asText(),
                j.get("gpus").asText()});
        }
        table(out(), rows);
        int shown = page.get("items").size();
        out().println(shown == 0 ? "no job matches" : (offset + 1) + "-" + (offset + shown) + " of " + page.get("total").asText() + " jobs");
        out().flush();
    }

    /** {@code ctl fairness}: each ClusterQueue's share against its fair share, and, under Themis, each app's rho and bid. */
    @Command(name = "fairness", mixinStandardHelpOptions = true, description = "Each ClusterQueue's actual share against its nominal and weighted "
            + "share, its dominant resource share and decayed usage; under Themis each app's finish-time fairness (rho) and bid.")
    void fairness() {
        JsonNode f = client(false).get("/fairness");
        if (json()) {
            out().println(f);
            out().flush();
            return;
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"QUEUE", "COHORT", "WEIGHT", "DOMINANT", "ACTUAL", "NOMINAL", "WEIGHTED", "DRS", "DECAYED"});
        for (JsonNode q : f.get("clusterQueues")) {
            rows.add(new String[] {q.get("name").asText(), text(q.get("cohort")), num(q.get("weight")), text(q.get("dominantResource")),
                pct(q.get("actualShare")), pct(q.get("nominalShare")), q.get("active").asBoolean() ? pct(q.get("weightedShare")) : "-",
                num(q.get("dominantResourceShare")), num(q.get("decayedUsage"))});
        }
        table(out(), rows);
        JsonNode apps = f.get("apps");
        if (apps != null && apps.isArray()) {
            out().println();
            List<String[]> a = new ArrayList<>();
            a.add(new String[] {"APP", "RHO", "BID (GPUS)", "JOBS"});
            for (JsonNode app : apps) {
                a.add(new String[] {app.get("name").asText(), app.get("rho").isNull() ? "unbounded" : num(app.get("rho")),
                    app.get("bidding").asBoolean() ? app.get("bidMinGpus").asText() + "-" + app.get("bidMaxGpus").asText() : "not bidding",
                    String.valueOf(app.get("jobs").size())});
            }
            table(out(), a);
        }
        out().flush();
    }

    private static String num(JsonNode n) {
        return n == null || n.isNull() ? "-" : String.format(Locale.ROOT, "%.2f", n.asDouble());
    }

    private static String pct(JsonNode n) {
        return n == null || n.isNull() ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * n.asDouble());
    }

    /** {@code ctl why JOB}: why a job waits, or where it runs. */
    @Command(name = "why", mixinStandardHelpOptions = true, description = "Why a job is pending (reason, position), or where it runs.")
    void why(@Parameters(paramLabel = "JOB", description = "The job id.") String job) {
        JsonNode j = client(false).get("/jobs/" + CtlClient.seg(job));
        PrintWriter out = out();
        if (json()) {
            out.println(j);
        } else if (j.get("state").asText().equals("PENDING")) {
            JsonNode r = j.get("reason");
            out.println(job + " is PENDING in ClusterQueue " + text(j.get("clusterQueue")) + (j.get("position").isNull() ? ""
                    : " at position " + j.get("position").asText() + " (" + j.get("jobsAhead").asText() + " jobs ahead)") + ", since "
                    + seconds(j.get("stateSinceMillis").asLong()));
            out.println("  " + (r == null || r.isNull() ? "no reason recorded" : reason(r)));
        } else {
            out.println(job + " is " + j.get("state").asText() + " (not pending) since " + seconds(j.get("stateSinceMillis").asLong())
                    + placement(j.get("placement")));
        }
        out.flush();
    }

    static String placement(JsonNode p) {
        if (p == null || p.isNull()) {
            return "";
        }
        StringBuilder b = new StringBuilder("; placed:");
        for (JsonNode m : p.get("members")) {
            b.append(' ').append(m.get("podSet").asText()).append('[').append(m.get("index").asText()).append("]=").append(m.get("node").asText())
                    .append(m.get("gpus").toString().replace("\"", ""));
        }
        return b.toString();
    }

    /** {@code ctl job JOB}: a job in full. */
    @Command(name = "job", mixinStandardHelpOptions = true, description = "A job: state, reason, placement down to GPUs, state history.")
    void job(@Parameters(paramLabel = "JOB", description = "The job id.") String job) {
        JsonNode j = client(false).get("/jobs/" + CtlClient.seg(job));
        PrintWriter out = out();
        if (json()) {
            out.println(j);
            out.flush();
            return;
        }
        out.println("Job:          " + j.get("id").asText());
        out.println("Queue:        " + j.get("namespace").asText() + "/" + j.get("localQueue").asText() + " -> ClusterQueue " + text(j.get("clusterQueue")));
        out.println("Job set:      " + j.get("jobSet").asText() + (j.get("owner").asText().isEmpty() ? "" : "   owner " + j.get("owner").asText()));
        out.println("Priority:     " + j.get("priority").asText());
        out.println("State:        " + j.get("state").asText() + " since " + seconds(j.get("stateSinceMillis").asLong())
                + (j.get("position").isNull() ? "" : ", position " + j.get("position").asText()) + ", preempted " + j.get("preemptions").asText() + "x");
        JsonNode r = j.get("reason");
        if (r != null && !r.isNull()) {
            out.println("Reason:       " + reason(r));
        }
        for (JsonNode ps : j.get("podSets")) {
            out.println("Pod set:      " + ps.get("name").asText() + " x" + ps.get("count").asText() + " " + ps.get("resources"));
        }
        JsonNode p = j.get("placement");
        if (p != null && !p.isNull()) {
            for (JsonNode m : p.get("members")) {
                out.println("Placed:       " + m.get("podSet").asText() + "[" + m.get("index").asText() + "] on " + m.get("node").asText() + " GPUs "
                        + m.get("gpus"));
            }
        }
        out.println("History:");
        for (JsonNode h : j.get("history")) {
            out.println(String.format(Locale.ROOT, "  %8s  %-16s %s", seconds(h.get("timeMillis").asLong()), h.get("type").asText(), h.get("reason").asText()));
        }
        out.flush();
    }

    /** {@code ctl submit FILE}: submits a job set to a manager's submission API. */
    @Command(name = "submit", mixinStandardHelpOptions = true, description = "Submits a job set (queue, jobSetId, jobs with podSpec, as "
            + "armadactl takes it) to a multi-cluster manager's submission API (--server: its --submit-port). Answers once the jobs are "
            + "durable in the manager's store. The token is a JWT (--token-file, or $FAIRWAY_TOKEN).")
    void submit(@Parameters(paramLabel = "FILE", description = "The job set, YAML or JSON.") Path file) {
        String text;
        try {
            if (Files.size(file) > 16L << 20) {
                throw new FairwayCommand.UserException("FILE: " + file + " is larger than 16 MiB; split the job set");
            }
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new FairwayCommand.UserException("FILE: cannot read " + file + ": " + e.getMessage());
        }
        JsonNode r = submitClient().post("/jobsets", "application/yaml", text);
        PrintWriter out = out();
        if (json()) {
            out.println(r);
        } else {
            out.println("submitted " + r.get("jobIds").size() + " jobs to job set " + r.get("jobSetId").asText() + " of queue " + r.get("queue").asText());
            r.get("jobIds").forEach(id -> out.println("  " + id.asText()));
        }
        out.flush();
    }

    private CtlClient submitClient() {
        if (tokenFile == null && System.getenv("FAIRWAY_TOKEN") != null) {
            return new CtlClient(server, System.getenv("FAIRWAY_TOKEN").strip(), java.time.Duration.ofMillis(Math.round(timeoutSeconds * 1000)),
                    spec.commandLine().getErr());
        }
        return client(true);
    }

    /**
     * {@code ctl watch JOBSET --queue Q}: a stored job set's events from the submission API, from a sequence number,
     * until every job of it has ended.
     */
    private int watchStored(String queue, String jobSet, long from) {
        boolean json = json();
        PrintWriter out = out();
        CtlClient c = submitClient();
        Map<String, String> last = new java.util.LinkedHashMap<>();
        long next = from;
        while (true) {
            long asked = System.nanoTime();
            JsonNode r = c.get("/jobsets/" + CtlClient.seg(queue) + "/" + CtlClient.seg(jobSet) + "/events?from=" + next + "&wait=20",
                    java.time.Duration.ofSeconds(40));
            if (r.get("events").isEmpty() && System.nanoTime() - asked < 1_000_000_000L) {
                try {
                    Thread.sleep(1000); // the server did not wait (too many watches there): do not ask again at once
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new FairwayCommand.UserException("interrupted");
                }
            }
            for (JsonNode e : r.get("events")) {
                if (json) {
                    out.println(e);
                } else {
                    out.println(String.format(Locale.ROOT, "%8d  %-28s %-14s %s", e.get("seq").asLong(), e.path("jobId").asText("-"),
                            e.get("type").asText(), e.path("message").asText("")));
                }
                if (e.hasNonNull("jobId")) {
                    String t = e.get("type").asText();
                    if (!TERMINAL.contains(last.getOrDefault(e.get("jobId").asText(), ""))) {
                        last.put(e.get("jobId").asText(), t);
                    }
                }
            }
            out.flush();
            next = r.get("next").asLong();
            if (!last.isEmpty() && last.values().stream().allMatch(TERMINAL::contains)) {
                if (!json) {
                    Map<String, Long> counts = new java.util.TreeMap<>();
                    last.values().forEach(v -> counts.merge(v, 1L, Long::sum));
                    out.println("job set " + jobSet + " done: " + counts + " (resume with --from " + next + ")");
                    out.flush();
                }
                return last.values().stream().allMatch("SUCCEEDED"::equals) ? 0 : 1;
            }
        }
    }

    private static final java.util.Set<String> TERMINAL = java.util.Set.of("SUCCEEDED", "FAILED", "CANCELLED");

    /** {@code ctl watch JOBSET}: streams a job set's events until every job has finished. */
    @Command(name = "watch", mixinStandardHelpOptions = true, description = "Streams a job set's events until every job of it has "
            + "finished; exits 0 when all succeeded, 1 otherwise. With --queue, reads a stored job set from a manager's submission API "
            + "(--server: its --submit-port), resumable with --from.")
    int watch(@Parameters(paramLabel = "JOBSET", description = "The job set.") String jobSet,
              @Option(names = "--queue", paramLabel = "QUEUE", description = "The job set's queue: watch it through the submission API.") String queue,
              @Option(names = "--from", paramLabel = "SEQ", defaultValue = "0", description = "With --queue: the events after this sequence "
                      + "number (0: from the start; each event line shows its number).") long from) {
        if (queue != null) {
            if (from < 0) {
                throw new FairwayCommand.UserException("--from must be >= 0, was " + from);
            }
            return watchStored(queue, jobSet, from);
        }
        boolean json = json();
        PrintWriter out = out();
        Iterator<String> lines = client(false).stream("/jobsets/" + CtlClient.seg(jobSet) + "/watch").iterator();
        String event = null;
        while (lines.hasNext()) {
            String line = lines.next();
            if (line.startsWith("event: ")) {
                event = line.substring(7);
            } else if (line.startsWith("data: ")) {
                JsonNode d = CtlClient.parse(line.substring(6));
                if (json) {
                    out.println("{\"event\":\"" + event + "\",\"data\":" + d + "}");
                } else if ("snapshot".equals(event)) {
                    out.println("job set " + jobSet + ": " + d.get("counts"));
                } else if ("job".equals(event)) {
                    out.println(String.format(Locale.ROOT, "%8s  %-12s %-16s %s", seconds(d.get("timeMillis").asLong()), d.get("jobId").asText(),
                            d.get("type").asText(), d.get("reason").asText()));
                }
                out.flush();
                if ("end".equals(event)) {
                    if (!json) {
                        out.println("job set " + jobSet + (d.get("timedOut").asBoolean() ? " still running when the stream's time ran out: "
                                : " done: ") + d.get("counts"));
                        out.flush();
                    }
                    return d.get("allSucceeded").asBoolean() ? 0 : 1;
                }
            }
        }
        throw new FairwayCommand.UserException("the stream ended before the job set finished (server stopped?)");
    }

    private void write(String path) {
        JsonNode r = client(true).post(path);
        if (json()) {
            out().println(r);
        } else {
            out().println(r.get("action").asText() + " " + r.get("target").asText() + ": " + (r.get("changed").asBoolean() ? "done" : "nothing to change"));
        }
        out().flush();
    }

    /** {@code ctl cancel JOB}. */
    @Command(name = "cancel", mixinStandardHelpOptions = true, description = "Cancels a job (needs a server with writes enabled and the token).")
    void cancel(@Parameters(paramLabel = "JOB", description = "The job id.") String job) {
        write("/jobs/" + CtlClient.seg(job) + "/cancel");
    }

    /** {@code ctl priority JOB N}. */
    @Command(name = "priority", mixinStandardHelpOptions = true, description = "Sets a job's priority (needs writes enabled and the token).")
    void priority(@Parameters(index = "0", paramLabel = "JOB", description = "The job id.") String job,
                  @Parameters(index = "1", paramLabel = "PRIORITY", description = "The new priority (larger runs first).") int priority) {
        write("/jobs/" + CtlClient.seg(job) + "/priority?value=" + priority);
    }

    /** {@code ctl stop-queue CQ}. */
    @Command(name = "stop-queue", mixinStandardHelpOptions = true, description = "Stops a ClusterQueue: it admits nothing new; running jobs go on.")
    void stopQueue(@Parameters(paramLabel = "CLUSTERQUEUE", description = "The ClusterQueue.") String queue) {
        write("/clusterqueues/" + CtlClient.seg(queue) + "/stop");
    }

    /** {@code ctl resume-queue CQ}. */
    @Command(name = "resume-queue", mixinStandardHelpOptions = true, description = "Resumes a stopped ClusterQueue.")
    void resumeQueue(@Parameters(paramLabel = "CLUSTERQUEUE", description = "The ClusterQueue.") String queue) {
        write("/clusterqueues/" + CtlClient.seg(queue) + "/resume");
    }

    /**
     * A pending reason as one phrase: its code, then its message without the words that only repeat the code
     * ("PREEMPTED: preempted by b1", not "PREEMPTED: preempted: preempted by b1").
     *
     * @param r the API's reason object ({@code code}, {@code message})
     * @return the phrase
     */
    static String reason(com.fasterxml.jackson.databind.JsonNode r) {
        String code = r.path("code").asText();
        String message = r.path("message").asText();
        String words = code.toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
        String rest = message;
        while (rest.toLowerCase(java.util.Locale.ROOT).startsWith(words + ": ")) {
            rest = rest.substring(words.length() + 2);
        }
        return rest.isEmpty() ? code : code + ": " + rest;
    }
}
