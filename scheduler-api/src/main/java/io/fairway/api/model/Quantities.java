package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;
import java.math.BigDecimal;

/**
 * Reads and writes Kubernetes resource quantity strings ({@code "500m"}, {@code "2"}, {@code "64Gi"},
 * {@code "1e3"}) in the base units of {@link Resources}: millicores for {@code cpu}, whole units otherwise.
 */
public final class Quantities {
    private Quantities() {
    }

    /**
     * @param resource the resource the quantity is for (decides the base unit)
     * @param text the quantity string
     * @return the quantity in base units
     * @throws InvalidSpecException naming the resource and the string when it cannot be read or is negative
     */
    public static long parse(String resource, String text) {
        if (text == null || text.isBlank()) {
            throw new InvalidSpecException("resources." + resource, text, "resource " + resource + ": quantity is empty");
        }
        String t = text.trim();
        BigDecimal multiplier = BigDecimal.ONE;
        String[][] suffixes = {
            {"Ki", "1024"}, {"Mi", "1048576"}, {"Gi", "1073741824"}, {"Ti", "1099511627776"}, {"Pi", "1125899906842624"},
            {"k", "1000"}, {"M", "1000000"}, {"G", "1000000000"}, {"T", "1000000000000"}, {"P", "1000000000000000"},
            {"m", "0.001"}, {"u", "0.000001"}, {"n", "0.000000001"},
        };
        for (String[] s : suffixes) {
            if (t.endsWith(s[0]) && t.length() > s[0].length()) {
                multiplier = new BigDecimal(s[1]);
                t = t.substring(0, t.length() - s[0].length());
                break;
            }
        }
        BigDecimal value;
        try {
            value = new BigDecimal(t).multiply(multiplier);
        } catch (NumberFormatException e) {
            throw new InvalidSpecException("resources." + resource, text,
                    "resource " + resource + ": \"" + text + "\" is not a quantity (e.g. 500m, 4, 64Gi)");
        }
        if (Resources.CPU.equals(resource)) {
            value = value.multiply(BigDecimal.valueOf(1000));
        }
        if (value.signum() > 0 && value.precision() - value.scale() > 19) { // checked before rounding: 1e999999999 would take forever
            throw new InvalidSpecException("resources." + resource, text, "resource " + resource + ": quantity " + text
                    + " is too large (at most " + format(resource, Resources.MAX_QUANTITY) + ")");
        }
        if (value.signum() > 0 && value.precision() - value.scale() < -30) { // a positive crumb rounds up to one base unit
            return 1;
        }
        if (value.signum() < 0) {
            throw new InvalidSpecException("resources." + resource, text,
                    "resource " + resource + ": quantity must be >= 0, was " + text);
        }
        long v;
        try {
            v = value.setScale(0, java.math.RoundingMode.CEILING).longValueExact();
        } catch (ArithmeticException e) {
            v = Long.MAX_VALUE;
        }
        if (v > Resources.MAX_QUANTITY) {
            throw new InvalidSpecException("resources." + resource, text, "resource " + resource + ": quantity " + text
                    + " is too large (at most " + format(resource, Resources.MAX_QUANTITY) + ")");
        }
        return v;
    }

    /**
     * @param resource the resource
     * @param amount a quantity in base units
     * @return a readable quantity string ({@code "32"} cores, {@code "64Gi"})
     */
    public static String format(String resource, long amount) {
        if (Resources.CPU.equals(resource)) {
            return amount % 1000 == 0 ? Long.toString(amount / 1000) : amount + "m";
        }
        if (Resources.MEMORY.equals(resource) && amount > 0 && amount % (1L << 30) == 0) {
            return (amount >> 30) + "Gi";
        }
        if (Resources.MEMORY.equals(resource) && amount > 0 && amount % (1L << 20) == 0) {
            return (amount >> 20) + "Mi";
        }
        return Long.toString(amount);
    }
}
