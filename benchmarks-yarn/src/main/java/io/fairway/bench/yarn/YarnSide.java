package io.fairway.bench.yarn;

import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockNodes;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.monitor.SchedulingEditPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity.ProportionalCapacityPreemptionPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeUpdateSchedulerEvent;
import org.apache.hadoop.yarn.util.resource.DominantResourceCalculator;

/**
 * Hadoop YARN 3.4.1's CapacityScheduler, driven in-process the way its own scheduler tests drive it: a
 * {@code MockRM} from the resource manager's test jar, nodes added with {@code NodeAddedSchedulerEvent}, one
 * application per queue (its RMApp and attempt mocked through their interfaces, as {@code TestCapacitySchedulerPerf} does) asking for its
 * queue's containers in one {@code ResourceRequest} (ANY, 1 vcore, the job's memory, {@code jobsPerQueue}
 * containers), and scheduling by {@code NodeUpdateSchedulerEvent} heartbeats, one per node per pass, until a pass
 * allocates nothing.
 *
 * <p>Queues: {@code root.q0..} with capacity {@code 100/queues} % and maximum capacity 100 %, user-limit factor
 * large enough for one user to use the whole cluster, the dominant-resource calculator. Heartbeats may assign any
 * number of containers, off-switch ones included (YARN's defaults cap the off-switch assignments per heartbeat; the
 * caps are lifted so that YARN is not slowed by them). Preemption: {@code ProportionalCapacityPreemptionPolicy}
 * with the settings YARN's preemption tests use (no wait before a kill, all of a round's preemption in one cycle,
 * natural termination factor 1); a cycle is {@code editSchedule()}, its events drained, then one heartbeat per
 * node. The first cycle marks the victims, the second kills them (YARN kills a marked container at the next cycle
 * after the wait), and the freed resources go to the newcomer on the heartbeats.
 */
public final class YarnSide implements Side {
    private static final int USER_LIMIT_FACTOR = 1_000;
    private static final int MAX_CYCLES = 200;
    private final Workload w;
    private MockRM rm;
    private CapacityScheduler cs;
    private List<RMNode> nodes;
    private FiCaSchedulerApp[] apps;
    private ProportionalCapacityPreemptionPolicy policy;
    private int clusterTimestamp = 1;

    /** @param w the workload */
    public YarnSide(Workload w) {
        this.w = w;
    }

    @Override
    public String name() {
        return "YARN CapacityScheduler";
    }

    @Override
    public void prepareFill() {
        start();
        for (int q = 0; q < w.queues(); q++) {
            request(q);
        }
    }

    @Override
    public Outcome fill() {
        long allocated0 = allocatedTotal();
        long t0 = System.nanoTime();
        heartbeats();
        long nanos = System.nanoTime() - t0;
        return new Outcome(nanos, 1, allocatedTotal() - allocated0, 0, apps[w.newcomer()].getLiveContainers().size());
    }

    @Override
    public void preparePreemption() {
        start();
        for (int q = 0; q < w.newcomer(); q++) {
            request(q);
        }
        heartbeats();
        request(w.newcomer());
    }

    @Override
    public Outcome preempt() {
        long allocated0 = allocatedTotal();
        long preempted0 = preemptedTotal();
        int cycles = 0;
        int idle = 0;
        long t0 = System.nanoTime();
        // A cycle that only marks victims changes nothing yet: stop after two cycles in a row change nothing.
        while (cycles < MAX_CYCLES && idle < 2) {
            cycles++;
            long before = allocatedTotal() + preemptedTotal();
            policy.editSchedule();
            rm.drainEvents();
            heartbeats();
            if (apps[w.newcomer()].getLiveContainers().size() >= w.reclaimable()) {
                break;
            }
            idle = allocatedTotal() + preemptedTotal() == before ? idle + 1 : 0;
        }
        long nanos = System.nanoTime() - t0;
        return new Outcome(nanos, cycles, allocatedTotal() - allocated0, preemptedTotal() - preempted0,
                apps[w.newcomer()].getLiveContainers().size());
    }

    @Override
    public Shape shape() {
        long containers = 0;
        for (FiCaSchedulerApp app : apps) {
            containers += app.getLiveContainers().size();
            for (ResourceRequest r : app.getAppSchedulingInfo().getAllResourceRequests()) {
                containers += r.getNumContainers();
            }
        }
        return new Shape(cs.getNumClusterNodes(), cs.getRootQueue().getChildQueues().size(), containers);
    }

    @Override
    public void close() {
        if (rm != null) {
            rm.stop();
            rm = null;
        }
        QueueMetrics.clearQueueMetrics();
        org.apache.hadoop.metrics2.lib.DefaultMetricsSystem.shutdown();
    }

    private long allocatedTotal() {
        return cs.getRootQueue().getMetrics().getAggregateAllocatedContainers();
    }

    private long preemptedTotal() {
        return cs.getRootQueue().getMetrics().getAggregatePreemptedContainers();
    }

    /** One heartbeat from every node, again until a pass allocates nothing. */
    private void heartbeats() {
        long last = -1;
        long now = allocatedTotal();
        while (now != last) {
            for (RMNode n : nodes) {
                cs.handle(new NodeUpdateSchedulerEvent(n));
            }
            last = now;
            now = allocatedTotal();
        }
    }

    private void request(int q) {
        ResourceRequest ask = ResourceRequest.newInstance(Priority.newInstance(1), ResourceRequest.ANY,
                Resource.newInstance(w.memoryGiBPerJob() * 1024L, 1), w.jobsPerQueue());
        apps[q].updateResourceRequests(List.of(ask));
    }

    private void start() {
        close();
        // The test jars carry a log4j configuration at DEBUG: quiet it, as YARN's own throughput test does.
        org.apache.log4j.LogManager.getRootLogger().setLevel(org.apache.log4j.Level.WARN);
        CapacitySchedulerConfiguration conf = new CapacitySchedulerConfiguration();
        conf.setResourceComparator(DominantResourceCalculator.class);
        String[] names = new String[w.queues()];
        for (int q = 0; q < w.queues(); q++) {
            names[q] = "q" + q;
            String path = "root.q" + q;
            conf.setCapacity(path, 100f / w.queues());
            conf.setMaximumCapacity(path, 100f);
            conf.setUserLimitFactor(path, USER_LIMIT_FACTOR);
            conf.setMaximumApplicationMasterResourcePerQueuePercent(path, 1f);
        }
        conf.setQueues("root", names);
        conf.setOffSwitchPerHeartbeatLimit(Integer.MAX_VALUE);
        conf.setBoolean(CapacitySchedulerConfiguration.ASSIGN_MULTIPLE_ENABLED, true);
        conf.setInt(CapacitySchedulerConfiguration.MAX_ASSIGN_PER_HEARTBEAT, -1);
        conf.setInt(CapacitySchedulerConfiguration.PREEMPTION_WAIT_TIME_BEFORE_KILL, 0);
        conf.setFloat(CapacitySchedulerConfiguration.TOTAL_PREEMPTION_PER_ROUND, 1f);
        conf.setFloat(CapacitySchedulerConfiguration.PREEMPTION_NATURAL_TERMINATION_FACTOR, 1f);
        conf.setFloat(CapacitySchedulerConfiguration.PREEMPTION_MAX_IGNORED_OVER_CAPACITY, 0f);
        YarnConfiguration yarn = new YarnConfiguration(conf);
        yarn.setClass(YarnConfiguration.RM_SCHEDULER, CapacityScheduler.class, ResourceScheduler.class);
        // Queues take part in preemption only when the monitors are on; the RM's own monitor thread is left idle
        // (an hour between its cycles) and the measurement calls the policy's cycle itself, as YARN's tests do.
        yarn.setBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, true);
        yarn.setClass(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES, ProportionalCapacityPreemptionPolicy.class,
                SchedulingEditPolicy.class);
        yarn.setLong(CapacitySchedulerConfiguration.PREEMPTION_MONITORING_INTERVAL, 3_600_000L);
        yarn.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, w.memoryGiBPerNode() * 1024);
        yarn.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES, w.cpusPerNode());
        rm = new MockRM(yarn);
        rm.start();
        cs = (CapacityScheduler) rm.getResourceScheduler();

        nodes = new ArrayList<>(w.nodes());
        Resource perNode = Resource.newInstance(w.memoryGiBPerNode() * 1024L, w.cpusPerNode());
        for (int i = 0; i < w.nodes(); i++) {
            RMNode n = MockNodes.newNodeInfo(i / 16, perNode, i, "10.0." + (i / 250) + "." + (i % 250));
            nodes.add(n);
            cs.handle(new NodeAddedSchedulerEvent(n));
        }

        Container master = mock(Container.class);
        ApplicationSubmissionContext submission = mock(ApplicationSubmissionContext.class);
        apps = new FiCaSchedulerApp[w.queues()];
        clusterTimestamp++;
        for (int q = 0; q < w.queues(); q++) {
            ApplicationId appId = ApplicationId.newInstance(clusterTimestamp, q + 1);
            ApplicationAttemptId attemptId = ApplicationAttemptId.newInstance(appId, 1);
            RMApp app = mock(RMApp.class);
            RMAppAttempt attempt = mock(RMAppAttempt.class);
            when(app.getApplicationId()).thenReturn(appId);
            when(app.getCurrentAppAttempt()).thenReturn(attempt);
            when(attempt.getAppAttemptId()).thenReturn(attemptId);
            when(attempt.getMasterContainer()).thenReturn(master);
            when(attempt.getSubmissionContext()).thenReturn(submission);
            when(attempt.getRMAppAttemptMetrics()).thenReturn(new RMAppAttemptMetrics(attemptId, rm.getRMContext()));
            rm.getRMContext().getRMApps().put(appId, app);
            cs.handle(new AppAddedSchedulerEvent(appId, "q" + q, "user-" + q));
            cs.handle(new AppAttemptAddedSchedulerEvent(attemptId, false));
            apps[q] = cs.getSchedulerApplications().get(appId).getCurrentAppAttempt();
        }
        policy = new ProportionalCapacityPreemptionPolicy();
        policy.init(yarn, rm.getRMContext(), cs);
    }
}
