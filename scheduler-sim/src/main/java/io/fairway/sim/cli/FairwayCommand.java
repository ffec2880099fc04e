package io.fairway.sim.cli;

import io.fairway.api.InvalidSpecException;
import io.fairway.sim.config.SimulationConfigException;
import io.fairway.sim.trace.TraceFormatException;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

/**
 * The {@code fairway} command line: {@code demo}, {@code simulate} and {@code policies}.
 *
 * <pre>
 * ./fairway demo                                   # the bundled Philly sample under every policy
 * ./fairway simulate --trace jobs.csv --policy strict-fifo,priority --json out.json
 * ./fairway simulate --scenario examples/scenarios/cedana-quota.yaml
 * ./fairway policies
 * ./fairway --policy-path my-policy.jar demo --policy my-policy    # a third-party policy ({@link PolicyPath})
 * ./fairway sweep --trace path/to/philly-trace.csv --seeds 21-60 --json sweep.json --plot sweep.png
 * </pre>
 *
 * <p>Exit codes: 0 success, 2 a usage or input error (an unknown policy, a malformed file; the message says
 * which, without a stack trace), 1 an internal error.
 */
@Command(name = "fairway", mixinStandardHelpOptions = true, versionProvider = FairwayCommand.Version.class,
        description = "Simulates GPU and batch cluster scheduling policies on job traces.",
        subcommands = {DemoCommand.class, SimulateCommand.class, PoliciesCommand.class, ThemisReproCommand.class,
            AutoscalingStudyCommand.class, TopologyStudyCommand.class, SweepCommand.class, CtlCommand.class,
            CommandLine.HelpCommand.class})
public final class FairwayCommand implements Runnable {
    /** Exit code for usage and input errors. */
    public static final int USER_ERROR = 2;

    @Spec
    private CommandSpec spec;

    @Option(names = "--policy-path", paramLabel = "PATH",
            description = "Jars or directories with more policies (their PolicyProvider listed in META-INF/services), "
                    + "separated by '${sys:path.separator}'; seen by every subcommand. Default: $" + PolicyPath.ENVIRONMENT + ".")
    private String policyPath;

    /** Created by picocli. */
    public FairwayCommand() {
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /**
     * @param args the arguments
     */
    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        CommandLine cl = newCommandLine();
        // The table prints ρ: write UTF-8 whatever the platform's default charset.
        cl.setOut(new PrintWriter(new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8), true));
        cl.setErr(new PrintWriter(new OutputStreamWriter(new FileOutputStream(FileDescriptor.err), StandardCharsets.UTF_8), true));
        System.exit(cl.execute(args));
    }

    /** @return the command line with its error handling; tests call {@code execute} on it and capture its writers */
    public static CommandLine newCommandLine() {
        CommandLine cl = new CommandLine(new FairwayCommand());
        cl.setExecutionExceptionHandler(FairwayCommand::handle);
        cl.setExecutionStrategy(FairwayCommand::withPolicyPath);
        return cl;
    }

    /** Runs the subcommand with the policies of {@code --policy-path} (or the environment's) visible. */
    private static int withPolicyPath(ParseResult parsed) {
        CommandLine cl = parsed.commandSpec().commandLine();
        FairwayCommand top = cl.getCommand();
        Thread t = Thread.currentThread();
        ClassLoader before = t.getContextClassLoader();
        try {
            if (top.policyPath != null) {
                PolicyPath.install(top.policyPath, "--policy-path");
            } else {
                PolicyPath.install(System.getenv(PolicyPath.ENVIRONMENT), PolicyPath.ENVIRONMENT);
            }
        } catch (UserException e) {
            cl.getErr().println("fairway: " + e.getMessage());
            cl.getErr().flush();
            return USER_ERROR;
        }
        try {
            return new CommandLine.RunLast().execute(parsed);
        } finally {
            t.setContextClassLoader(before);
        }
    }

    private static int handle(Exception ex, CommandLine cl, ParseResult parsed) throws Exception {
        if (ex instanceof InvalidSpecException || ex instanceof SimulationConfigException || ex instanceof TraceFormatException
                || ex instanceof UncheckedIOException || ex instanceof UserException) {
            // the whole command path, so "fairway ctl why: ..." says which command failed
            cl.getErr().println(cl.getCommandSpec().qualifiedName() + ": " + ex.getMessage());
            cl.getErr().flush();
            return USER_ERROR;
        }
        throw ex;
    }

    /** An error in what the user gave, reported without a stack trace. */
    static final class UserException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UserException(String message) {
            super(message);
        }
    }

    /** Reads the version from the jar manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = FairwayCommand.class.getPackage().getImplementationVersion();
            return new String[] {"fairway " + (v == null ? "(development build)" : v)};
        }
    }
}
