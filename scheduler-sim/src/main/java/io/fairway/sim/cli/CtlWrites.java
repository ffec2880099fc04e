package io.fairway.sim.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code fairway ctl}'s write verbs: answered only by a server started with writes enabled, with the token. */
final class CtlWrites {
    private CtlWrites() {
    }

    static void print(CtlCommand ctl, JsonNode r) {
        PrintWriter out = ctl.out();
        if (ctl.json()) {
            out.println(r);
        } else {
            out.println(r.get("action").asText() + " " + r.get("target").asText() + ": " + (r.get("changed").asBoolean() ? "done" : "nothing to change"));
        }
        out.flush();
    }

    /** {@code ctl cancel JOB}. */
    @Command(name = "cancel", mixinStandardHelpOptions = true, description = "Cancels a job (needs a server with writes enabled and the token).")
    static final class Cancel implements Runnable {
        @ParentCommand
        CtlCommand ctl;

        @Parameters(paramLabel = "JOB", description = "The job id.")
        String job;

        @Override
        public void run() {
            print(ctl, ctl.client(true).post("/jobs/" + CtlClient.seg(job) + "/cancel"));
        }
    }

    /** {@code ctl priority JOB N}. */
    @Command(name = "priority", mixinStandardHelpOptions = true, description = "Sets a job's priority (needs writes enabled and the token).")
    static final class Priority implements Runnable {
        @ParentCommand
        CtlCommand ctl;

        @Parameters(index = "0", paramLabel = "JOB", description = "The job id.")
        String job;

        @Parameters(index = "1", paramLabel = "PRIORITY", description = "The new priority (an integer; larger runs first).")
        int priority;

        @Override
        public void run() {
            print(ctl, ctl.client(true).post("/jobs/" + CtlClient.seg(job) + "/priority?value=" + priority));
        }
    }

    /** {@code ctl stop-queue CQ}. */
    @Command(name = "stop-queue", mixinStandardHelpOptions = true, description = "Stops a ClusterQueue: it admits nothing new; running jobs go on.")
    static final class StopQueue implements Runnable {
        @ParentCommand
        CtlCommand ctl;

        @Parameters(paramLabel = "CLUSTERQUEUE", description = "The ClusterQueue.")
        String queue;

        @Override
        public void run() {
            print(ctl, ctl.client(true).post("/clusterqueues/" + CtlClient.seg(queue) + "/stop"));
        }
    }

    /** {@code ctl resume-queue CQ}. */
    @Command(name = "resume-queue", mixinStandardHelpOptions = true, description = "Resumes a stopped ClusterQueue.")
    static final class ResumeQueue implements Runnable {
        @ParentCommand
        CtlCommand ctl;

        @Parameters(paramLabel = "CLUSTERQUEUE", description = "The ClusterQueue.")
        String queue;

        @Override
        public void run() {
            print(ctl, ctl.client(true).post("/clusterqueues/" + CtlClient.seg(queue) + "/resume"));
        }
    }
}
