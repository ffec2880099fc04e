package io.fairway.sim.cli;

import io.fairway.api.spi.PolicyProvider;
import io.fairway.core.Policies;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code fairway policies}: the policies found on the class path, with their descriptions and the parameters they declare. */
@Command(name = "policies", mixinStandardHelpOptions = true,
        description = "Lists the policies found on the class path, with the parameters each declares (give them as --policy NAME:KEY=VALUE,...).")
public final class PoliciesCommand implements Runnable {
    @Spec
    private CommandSpec spec;

    /** Created by picocli. */
    public PoliciesCommand() {
    }

    @Override
    public void run() {
        PrintWriter out = spec.commandLine().getOut();
        Map<String, PolicyProvider> all = Policies.available();
        int w = all.keySet().stream().mapToInt(String::length).max().orElse(0);
        for (PolicyProvider p : all.values()) {
            out.println(p.name() + " ".repeat(w - p.name().length()) + "  " + p.description());
            java.util.Set<String> params = p.parameters();
            if (params != null && !params.isEmpty()) {
                out.println(" ".repeat(w) + "  parameters: " + String.join(", ", new java.util.TreeSet<>(params))
                        + "  (--policy " + p.name() + ":KEY=VALUE,KEY=VALUE)");
            }
        }
        out.flush();
    }
}
