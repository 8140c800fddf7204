package io.rstore.config;

/** Human-readable sizes, and parsing of sizes such as {@code 64MiB}. */
public final class Units {
    private Units() {
    }

    public static String bytes(long n) {
        if (n >= 1L << 30 && n % (1L << 30) == 0) {
            return (n >> 30) + " GiB";
        }
        if (n >= 1L << 20 && n % (1L << 20) == 0) {
            return (n >> 20) + " MiB";
        }
        if (n >= 1L << 10 && n % (1L << 10) == 0) {
            return (n >> 10) + " KiB";
        }
        return n + " B";
    }

    /** Parses {@code 123}, {@code 4KiB}, {@code 16MiB}, {@code 1GiB} (also k/m/g, KB/MB/GB as binary units). */
    public static long parseBytes(String text) {
        String t = text.trim().toLowerCase(java.util.Locale.ROOT).replace("ib", "").replace("b", "");
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
