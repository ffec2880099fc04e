package io.fairway.sim.cli.plugin;

import io.fairway.api.job.JobStatus;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.PolicyProvider;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * A third-party policy for {@code PolicyPathTest}: compiled with the tests but listed in no
 * {@code META-INF/services} file on the test class path, so only a jar given to {@code --policy-path} makes it visible.
 */
public final class OldestFirstProvider implements PolicyProvider {
    /** The name it is found by. */
    public static final String NAME = "plugin-oldest-first";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "oldest job first (a test plugin)";
    }

    @Override
    public SchedulingPolicy create(Map<String, String> parameters) {
        return new SchedulingPolicy() {
            @Override
            public String name() {
                return NAME;
            }

            @Override
            public void plan(PolicyContext ctx) {
                List<JobStatus> pending = new ArrayList<>(ctx.pending());
                pending.sort(Comparator.comparingLong(JobStatus::sequence));
                pending.forEach(ctx::tryAdmit);
            }
        };
    }
}
