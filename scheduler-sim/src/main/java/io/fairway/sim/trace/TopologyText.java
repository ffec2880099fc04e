package io.fairway.sim.trace;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.TopologyRequest;
import java.util.Locale;

/**
 * A pod set's {@link TopologyRequest} written as one short text, as the native CSV's {@code topology} column holds it:
 * <ul>
 *   <li>{@code required:LEVEL} — all members in one domain of the topology level {@code LEVEL} (a node label key such as
 *       {@code fairway.io/rack}, or {@code kubernetes.io/hostname} for one node), or not at all;</li>
 *   <li>{@code preferred:LEVEL} — one domain of {@code LEVEL} if possible;</li>
 *   <li>{@code nvlink-domain} — all GPUs in one NVLink domain (one node);</li>
 *   <li>{@code spread} — members spread across nodes;</li>
 *   <li>empty or {@code none} — no constraint.</li>
 * </ul>
 *
 * <pre>{@code
 * TopologyRequest t = TopologyText.parse("required:fairway.io/rack");   // TopologyRequest.required("fairway.io/rack")
 * TopologyText.format(t);                                                // "required:fairway.io/rack"
 * }</pre>
 */
public final class TopologyText {
    private TopologyText() {
    }

    /**
     * @param text the request as text (see the class comment), or null
     * @return the request ({@link TopologyRequest#NONE} for null, empty or {@code none})
     * @throws InvalidSpecException naming the text when it is none of the forms
     */
    public static TopologyRequest parse(String text) {
        String t = text == null ? "" : text.trim();
        String lower = t.toLowerCase(Locale.ROOT);
        if (t.isEmpty() || lower.equals("none")) {
            return TopologyRequest.NONE;
        }
        if (lower.equals("nvlink-domain")) {
            return TopologyRequest.nvlinkDomain();
        }
        if (lower.equals("spread")) {
            return TopologyRequest.spreadAcrossNodes();
        }
        int colon = t.indexOf(':');
        String kind = colon < 0 ? lower : lower.substring(0, colon).trim();
        String level = colon < 0 ? "" : t.substring(colon + 1).trim();
        if ((kind.equals("required") || kind.equals("preferred")) && !level.isEmpty()) {
            return kind.equals("required") ? TopologyRequest.required(level) : TopologyRequest.preferred(level);
        }
        throw new InvalidSpecException("topology", text, "topology \"" + text + "\" is not one of required:LEVEL, preferred:LEVEL, "
                + "nvlink-domain, spread, none (LEVEL a node label key such as fairway.io/rack)");
    }

    /**
     * @param request a request
     * @return it as text that {@link #parse} reads back (empty for {@link TopologyRequest#NONE})
     */
    public static String format(TopologyRequest request) {
        if (request == null || request.equals(TopologyRequest.NONE)) {
            return "";
        }
        if (request.sameNvlinkDomain()) {
            return "nvlink-domain";
        }
        if (request.spread()) {
            return "spread";
        }
        return (request.required() ? "required:" : "preferred:") + request.level();
    }
}
