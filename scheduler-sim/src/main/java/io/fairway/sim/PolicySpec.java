package io.fairway.sim;

import io.fairway.api.InvalidSpecException;
import io.fairway.core.Policies;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A policy as a user writes it on a command line or in a scenario: a name and its parameters.
 *
 * <p>Syntax of one or more policies, {@link #parseList}:
 * <pre>
 * SPECS = SPEC { SEP SPEC }          SEP is "," or ";" (interchangeable)
 * SPEC  = NAME [ ":" PARAM { SEP PARAM } ]
 * PARAM = KEY "=" VALUE
 * </pre>
 * A token holding {@code =} (before any {@code :}) is a parameter of the policy named before it; any other token
 * starts a new policy. So {@code themis:f=0.2,leaseMinutes=10,tiresias-las} is themis with two parameters, then
 * tiresias-las without any; {@code themis:f=0.2;leaseMinutes=10} is the same themis. A value can hold neither
 * {@code ,} nor {@code ;}: list values take {@code /} ({@code tiresias-las:thresholds=3250/7200/18000}).
 *
 * <pre>{@code
 * PolicySpec p = PolicySpec.parse("themis:f=0.2,leaseMinutes=10");   // themis {f=0.2, leaseMinutes=10}
 * List<PolicySpec> all = PolicySpec.parseList("themis:f=0.2,srtf");  // [themis:f=0.2, srtf]
 * p.check();                                                          // unknown policy or parameter: InvalidSpecException
 * Simulator.run(input, p.name(), p.applyTo(SimulationOptions.DEFAULTS));
 * }</pre>
 *
 * @param name the policy's name, as {@link Policies} knows it
 * @param parameters its parameters, in the order given
 */
public record PolicySpec(String name, Map<String, String> parameters) {
    /** Validates and copies (keeping the order). */
    public PolicySpec {
        InvalidSpecException.check(name != null && !name.isBlank(), "policy", name, "a policy needs a name, was \"%s\"", name);
        name = name.trim();
        parameters = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(parameters == null ? Map.of() : parameters));
    }

    /**
     * @param name a policy name
     * @return the policy without parameters
     */
    public static PolicySpec of(String name) {
        return new PolicySpec(name, Map.of());
    }

    /**
     * @param spec one policy, {@code NAME} or {@code NAME:KEY=VALUE,KEY=VALUE} (or {@code ;} between parameters)
     * @return it
     * @throws InvalidSpecException when the text is empty, holds several policies, or a parameter is malformed or repeated
     */
    public static PolicySpec parse(String spec) {
        List<PolicySpec> l = parseList(spec);
        if (l.size() != 1) {
            throw new InvalidSpecException("policy", spec, "\"" + spec + "\" names " + l.size() + " policies " + l
                    + "; expected one, NAME or NAME:KEY=VALUE,KEY=VALUE");
        }
        return l.get(0);
    }

    /**
     * @param text policies in the syntax of this class, e.g. {@code themis:f=0.2,leaseMinutes=10,tiresias-las}
     * @return them, in order (empty for a blank text)
     * @throws InvalidSpecException when a parameter comes before any policy name, or is malformed or repeated
     */
    public static List<PolicySpec> parseList(String text) {
        List<PolicySpec> out = new ArrayList<>();
        if (text == null) {
            return out;
        }
        String name = null;
        Map<String, String> params = null;
        for (String raw : text.split("[,;]")) {
            String token = raw.trim();
            if (token.isEmpty()) {
                continue;
            }
            int eq = token.indexOf('=');
            int colon = token.indexOf(':');
            String param;
            if (eq >= 0 && (colon < 0 || eq < colon)) {
                if (name == null) {
                    throw new InvalidSpecException("policy", text, "policy parameter \"" + token + "\" in \"" + text
                            + "\" comes before any policy name; write NAME:KEY=VALUE,KEY=VALUE");
                }
                param = token;
            } else {
                if (name != null) {
                    out.add(new PolicySpec(name, params));
                }
                name = colon < 0 ? token : token.substring(0, colon).trim();
                if (name.isEmpty()) {
                    throw new InvalidSpecException("policy", text, "\"" + token + "\" in \"" + text + "\" has no policy name before \":\"");
                }
                params = new LinkedHashMap<>();
                param = colon < 0 ? "" : token.substring(colon + 1).trim();
                if (param.isEmpty()) {
                    continue;
                }
            }
            int e = param.indexOf('=');
            String key = e < 0 ? param : param.substring(0, e).trim();
            String value = e < 0 ? "" : param.substring(e + 1).trim();
            if (e < 0 || key.isEmpty() || value.isEmpty()) {
                throw new InvalidSpecException("policy." + name, param, "policy " + name + ": parameter \"" + param
                        + "\" is not KEY=VALUE (in \"" + text + "\")");
            }
            if (params.put(key, value) != null) {
                throw new InvalidSpecException("policy." + name + "." + key, value, "policy " + name + ": parameter " + key
                        + " is given twice (in \"" + text + "\")");
            }
        }
        if (name != null) {
            out.add(new PolicySpec(name, params));
        }
        return out;
    }

    /**
     * @param values several texts, e.g. the values of a repeated {@code --policy} option
     * @return their policies, in order, each distinct {@link #label()} once
     */
    public static List<PolicySpec> parseAll(Collection<String> values) {
        List<PolicySpec> out = new ArrayList<>();
        for (String v : values == null ? List.<String>of() : values) {
            for (PolicySpec p : parseList(v)) {
                if (out.stream().noneMatch(q -> q.label().equals(p.label()))) {
                    out.add(p);
                }
            }
        }
        return out;
    }

    /** @return the name alone without parameters, else {@code name:key=value,key=value}, which {@link #parse} reads back */
    public String label() {
        if (parameters.isEmpty()) {
            return name;
        }
        StringBuilder sb = new StringBuilder(name).append(':');
        parameters.forEach((k, v) -> sb.append(sb.charAt(sb.length() - 1) == ':' ? "" : ",").append(k).append('=').append(v));
        return sb.toString();
    }

    /**
     * Checks that the policy is installed and takes these parameters, by creating it once.
     *
     * @throws InvalidSpecException naming an unknown policy (listing the installed ones), an unknown parameter (listing the
     *     known ones), or a bad value
     */
    public void check() {
        Policies.create(name, parameters);
    }

    /**
     * @param options simulation options
     * @return them with this policy's parameters
     */
    public SimulationOptions applyTo(SimulationOptions options) {
        return options.withPolicyParameters(parameters);
    }

    @Override
    public String toString() {
        return label();
    }
}
