package io.rstore.config;

import java.util.Locale;

/** Human-readable sizes, and parsing of sizes such as {@code 64MiB}. */
public final class Units {
    private Units() {
    }

    public static String bytes(long n) {
        for (int shift = 30; shift >= 10; shift -= 10) { // the largest unit it reaches: whole, or to a tenth
            if (n >= 1L << shift) {
                String unit = shift == 30 ? "GiB" : shift == 20 ? "MiB" : "KiB";
                return n % (1L << shift) == 0 ? (n >> shift) + " " + unit
                        : String.format(Locale.ROOT, "%.1f %s", n / (double) (1L << shift), unit);
            }
        }
        return n + " B";
    }

    /** Parses {@code 123}, {@code 4KiB}, {@code 16MiB}, {@code 1GiB} (also k/m/g, KB/MB/GB as binary units). */
    public static long parseBytes(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT).replace("ib", "").replace("b", "");
        long scale = 1;
        if (t.endsWith("k")) {
            scale = 1L << 10;
        } else if (t.endsWith("m")) {
            scale = 1L << 20;
        } else if (t.endsWith("g")) {
            scale = 1L << 30;
        }
        String digits = scale == 1 ? t : t.substring(0, t.length() - 1);
        try {
            return Math.multiplyExact(Long.parseLong(digits.trim()), scale);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("'" + text + "' is not a size; write e.g. 4096, 64KiB, 16MiB or 1GiB");
        }
    }
}
